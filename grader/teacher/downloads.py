"""What a learning platform hands the teacher, read as one submission per
student: ``read(DIR)`` for ``batch`` and ``similar``.

DIR (a folder, or a zip of the whole class) is one of

- a Canvas "Download Submissions" zip or its folder: flat files named
  ``<name>[_LATE]_<user id>_<attachment id>_<file name>`` (canvas-lms,
  ``lib/content_zipper.rb``: the name is the sortable name, lowercased,
  without what is not a word character; ``LATE`` when the submission was
  late; ``anon_<id>`` in place of name and user id under anonymous
  grading). Students are keyed by user id. A file the student uploaded
  again under a name they had used comes back as ``name-1.py``; where two
  files give one exercise, the newest upload (the larger attachment id)
  is graded and the note says which was not;
- a Moodle "Download all submissions" zip or folder: one folder per
  student and plugin, ``<Full Name>_<participant id>_assignsubmission_file``
  (an older Moodle adds a ``_``), or flat files
  ``<Full Name>_<participant id>_assignsubmission_file_<file name>``
  (moodle, ``mod/assign/classes/downloader.php``). Keyed by participant id,
  the number of the grading worksheet's "Participant N". Online text is
  not graded: the student's note says so;
- anything else is ``intake.discover``'s: a folder or zip per student, or
  nbgrader's collected layout (``timestamp.txt`` gives the time).

A platform's files are copied into a folder per student under the work
folder, by their original names, and graded from there; a student who sent
a single zip has that zip read as ``intake`` reads any. Every rule of
``intake`` holds: nothing followed through a symbolic link, sizes checked
while reading, bad input a note and never an exception.
"""
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field

from grader.teacher import intake
from grader.teacher.intake import FILENAMES, QUIET, Entry, _note, printable

CANVAS = "Canvas"
MOODLE = "Moodle"
# A class's zip is larger than a student's: these bound what one may unpack.
MAX_CLASS_ZIP_BYTES = 1024**3
MAX_CLASS_ZIP_MEMBERS = 50_000
MAX_CLASS_ZIP_UNPACKED = 2 * 1024**3

KINDS = {
    CANVAS: "Canvas 的“下载提交” / Canvas's Download Submissions",
    MOODLE: "Moodle 的“下载所有提交” / Moodle's Download all submissions",
    "nbgrader": "nbgrader 收集的作业（timestamp.txt） / nbgrader's collected submissions (timestamp.txt)",
    "folders": "每名学生一个文件夹或 zip / a folder or zip per student",
}


@dataclass
class Download:
    kind: str  # a key of KINDS
    entries: list[Entry]
    warnings: list[str] = field(default_factory=list)

    @property
    def described(self) -> str:
        return KINDS[self.kind]


# ------------------------------------------------------------ file names


@dataclass
class CanvasFile:
    name: str  # "smithjohn"; "" under anonymous grading
    student_id: str  # the user id, or "anon_<id>"
    late: bool
    attachment: int | None  # None: a text entry or a URL (text.html, link.html)
    filename: str  # as the student named it


def canvas_file(name: str) -> CanvasFile | None:
    """A Canvas download's file name, taken apart; None if it is not one.
    Canvas removes ``_<digits>_`` from names so that the first number is
    the user id (content_zipper.rb's own comment), which is how it reads
    them back too."""
    parts = name.split("_")
    for i, part in enumerate(parts):
        if part.isdigit() and part.isascii():
            sid, rest = part, parts[i + 1 :]
            head = parts[:i]
            break
        if part == "anon" and i + 1 < len(parts):
            sid, rest = "anon_" + parts[i + 1], parts[i + 2 :]
            head = parts[:i]
            break
    else:
        return None
    late = bool(head) and head[-1] == "LATE"
    if late:
        head = head[:-1]
    if rest and rest[0].isdigit() and rest[0].isascii() and len(rest) > 1:
        return CanvasFile("_".join(head), sid, late, int(rest[0]), "_".join(rest[1:]))
    if rest in (["text.html"], ["link.html"]):
        return CanvasFile("_".join(head), sid, late, None, rest[0])
    return None


MOODLE_NAME = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<file>.*))?$", re.S)


def moodle_name(name: str) -> tuple[str, str, str, str] | None:
    """(full name, participant id, plugin, file name or "") of a Moodle
    download's top-level name; None if it is not one. Moodle turns ``_`` in
    a name into a space, so the first ``_`` ends the name."""
    m = MOODLE_NAME.match(name)
    if m is None:
        return None
    return m["name"], m["id"], m["plugin"], m["file"] or ""


def _resubmitted(filename: str) -> tuple[str, int]:
    """``ex0_weighted_sum-2.py`` -> (``ex0_weighted_sum.py``, 2): the name a
    file had before Canvas told it from an earlier upload of that name, and
    how many came before; other names as they are, with 0."""
    stem, dot, ext = filename.rpartition(".")
    m = re.fullmatch(r"(.+)-(\d+)", stem)
    if dot and m and f"{m[1]}.{ext}" in FILENAMES:
        return f"{m[1]}.{ext}", int(m[2])
    return filename, 0


def _guarded(sid: str, name: str, read) -> Entry:
    """``read()``'s entry; a note instead if it fails: one student's odd
    files never stop the batch."""
    try:
        return read()
    except Exception as exc:  # noqa: BLE001
        return Entry(sid, None, [_note("无法读取，未评分", f"could not be read, not graded ({type(exc).__name__})")], printable(name or sid), name=printable(name))


# ------------------------------------------------------------------ read


def read(path: str, work_dir: str, assignment: str | None = "attention", exclude: tuple = ()) -> Download:
    """The submissions in ``path``, a folder or a zip of the whole class;
    what is unpacked or copied goes under ``work_dir``."""
    warnings: list[str] = []
    os.makedirs(work_dir, exist_ok=True)
    if os.path.isfile(path) and not os.path.islink(path):
        folder = os.path.join(work_dir, "download")
        os.makedirs(folder, exist_ok=True)
        problem = _unpack_class(path, folder, warnings)
        if problem:
            return Download("folders", [], [problem])
        path = folder
        inside = [n for n in os.listdir(folder) if n not in QUIET]
        if len(inside) == 1 and _is_dir(folder, inside[0]) and not moodle_name(inside[0]):
            path = os.path.join(folder, inside[0])  # a zip of the download's folder
    excluded = {os.path.realpath(p) for p in exclude}
    try:
        names = sorted(n for n in os.listdir(path) if not n.startswith(".") and n not in QUIET and os.path.realpath(os.path.join(path, n)) not in excluded)
    except OSError as exc:
        return Download("folders", [], [f"cannot read {path}: {exc.strerror}"])
    # A platform's layout when most names are its own: a folder per student
    # with one odd file in it stays a folder per student.
    canvas = [n for n in names if canvas_file(n) and _is_file(path, n)]
    moodle = [n for n in names if moodle_name(n)]
    if len(canvas) * 2 > len(names):
        entries = _canvas(path, names, work_dir, assignment, warnings)
        return Download(CANVAS, entries, warnings)
    if len(moodle) * 2 > len(names):
        entries = _moodle(path, names, work_dir, assignment, warnings)
        return Download(MOODLE, entries, warnings)
    entries, more = intake.discover(path, work_dir, assignment, exclude)
    kind = "nbgrader" if any(e.time_source == "timestamp.txt" for e in entries) else "folders"
    return Download(kind, entries, warnings + more)


def _is_file(root: str, name: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(os.path.join(root, name)).st_mode)
    except OSError:
        return False


def _ignored(names: list[str], warnings: list[str], why_zh: str, why_en: str) -> None:
    if names:
        warnings.append(_note(f"忽略（{why_zh}）", f"ignored ({why_en})") + ": " + intake._list(names, 5))


def _canvas(root: str, names: list[str], work_dir: str, assignment, warnings: list[str]) -> list[Entry]:
    by_student: dict[str, list[tuple[CanvasFile, str]]] = {}
    others = []
    for n in names:
        f = canvas_file(n) if _is_file(root, n) else None
        if f is None:
            others.append(n)
        else:
            by_student.setdefault(f.student_id, []).append((f, n))
    _ignored(others, warnings, "不是 Canvas 下载的文件", "not a file of a Canvas download")
    entries = []
    for sid in sorted(by_student):
        files = by_student[sid]
        name = next((f.name for f, _ in files if f.name), "")
        late = any(f.late for f, _ in files)
        notes: list[str] = []
        texts = [f.filename for f, _ in files if f.attachment is None]
        if texts:
            notes.append(_note("文本或网址提交不评分", "a text entry or URL is not graded") + ": " + intake._list(texts))
        uploads = [(f, n) for f, n in files if f.attachment is not None]
        given = [(*_resubmitted(f.filename), f.attachment, n) for f, n in uploads]
        entry = _guarded(sid, name, lambda: _platform_entry(root, sid, name, given, work_dir, assignment, notes))
        entry.marked_late, entry.name = late, printable(name)
        entries.append(entry)
    return entries


def _moodle(root: str, names: list[str], work_dir: str, assignment, warnings: list[str]) -> list[Entry]:
    by_student: dict[str, dict] = {}
    others = []
    for n in names:
        parsed = moodle_name(n)
        if parsed is None:
            others.append(n)
            continue
        full, sid, plugin, filename = parsed
        s = by_student.setdefault(sid, {"name": full, "folders": [], "files": [], "other": []})
        if plugin != "file":
            s["other"].append(plugin)
        elif _is_dir(root, n):
            s["folders"].append(n)
        else:
            s["files"].append((filename, 0, None, n))
    _ignored(others, warnings, "不是 Moodle 下载的文件", "not part of a Moodle download")
    entries = []
    for sid in sorted(by_student, key=lambda s: (len(s), s)):
        s = by_student[sid]
        notes: list[str] = []
        if s["other"]:
            notes.append(_note("在线文本等提交不评分", "online text and other non-file submissions are not graded") + ": " + ", ".join(sorted(set(s["other"]))))
        if len(s["folders"]) > 1 or (s["folders"] and s["files"]):
            shown = intake._list(s["folders"] + [f[-1] for f in s["files"]], 5)
            entry = Entry(sid, None, [_note(f"重复提交（{shown}），均未评分", f"given twice ({shown}): neither graded")], printable(s["name"]))
        elif s["folders"]:
            entry = _guarded(sid, s["name"], lambda: _moodle_folder(root, s["folders"][0], sid, work_dir, assignment))
        else:
            entry = _guarded(sid, s["name"], lambda: _platform_entry(root, sid, s["name"], s["files"], work_dir, assignment, []))
        entry.name = printable(s["name"])
        entry.notes = [*notes, *entry.notes]
        entries.append(entry)
    return entries


def _is_dir(root: str, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(os.path.join(root, name)).st_mode)
    except OSError:
        return False


def _moodle_folder(root: str, folder: str, sid: str, work_dir: str, assignment) -> Entry:
    """A student's file folder: graded as a folder, or the zip in it when
    that is all it holds."""
    path = os.path.join(root, folder)
    try:
        inside = [n for n in os.listdir(path) if not n.startswith(".") and n not in QUIET]
    except OSError:
        inside = []
    zips = [n for n in inside if n.lower().endswith(".zip") and _is_file(path, n)]
    if len(inside) == 1 and zips:
        return intake.from_zip(os.path.join(path, zips[0]), sid, f"{folder}/{zips[0]}", work_dir, assignment)
    return intake.from_folder(path, sid, folder, assignment)


def _platform_entry(root: str, sid: str, name: str, files: list[tuple[str, int, int | None, str]], work_dir: str, assignment, notes: list[str]) -> Entry:
    """A student whose files lie flat in ``root``: ``files`` is (the name
    they gave it, Canvas's ``-N`` of a name given again or 0, the upload's
    attachment id or None, its name in ``root``). Copied under the names
    they gave into a folder of the work folder, and graded there; a single
    zip is read as a zip. Of two files of one name the later upload wins:
    the larger ``-N``, then the larger attachment id."""
    display = f"{printable(name)} ({sid})" if name else sid
    if len(files) == 1 and files[0][0].lower().endswith(".zip"):
        entry = intake.from_zip(os.path.join(root, files[0][3]), sid, display, work_dir, assignment)
        entry.notes = [*notes, *entry.notes]
        return entry
    chosen: dict[str, str] = {}
    older: list[str] = []
    for given, _, _, real in sorted(files, key=lambda f: (f[1], f[2] or 0, f[3])):
        if given in chosen:
            older.append(chosen[given])
        chosen[given] = real
    if older:
        notes.append(_note("同名文件上传了多次，只评最新的一份；未评", "a file of that name was uploaded more than once: the newest is graded, not") + ": " + intake._list(older))
    folder = os.path.join(work_dir, "students", intake.safe_name(sid))
    os.makedirs(folder, exist_ok=True)
    junk = []
    for given, real in sorted(chosen.items()):
        if given not in FILENAMES or "/" in given:
            junk.append(real)
            continue
        data = intake._read_regular(os.path.join(root, real), notes)
        if isinstance(data, bytes):
            with open(os.path.join(folder, given), "wb") as f:
                f.write(data)
    entry = intake.from_folder(folder, sid, display, assignment)
    entry.display = display
    intake._note_ignored(junk, notes)
    entry.notes = [*notes, *entry.notes]
    return entry


def _unpack_class(path: str, folder: str, warnings: list[str]) -> str:
    """Unpack a class's zip into ``folder``: its regular files, at safe
    paths, checked for size as they are read. Returns why not, or ""."""
    try:
        if os.path.getsize(path) > MAX_CLASS_ZIP_BYTES:
            return _note(f"zip 超过 {MAX_CLASS_ZIP_BYTES >> 20} MB", f"the zip is over {MAX_CLASS_ZIP_BYTES >> 20} MB")
        zf = zipfile.ZipFile(path)
        members = zf.infolist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return _note(f"不是文件夹，也不是有效的 zip：{printable(path)}", f"neither a folder nor a valid zip: {printable(path)}")
    with zf:
        if len(members) > MAX_CLASS_ZIP_MEMBERS or sum(m.file_size for m in members) > MAX_CLASS_ZIP_UNPACKED:
            return _note("zip 过大，未评分", f"the zip is too large (over {MAX_CLASS_ZIP_MEMBERS} files or {MAX_CLASS_ZIP_UNPACKED >> 20} MB unpacked)")
        refused, links = [], []
        for m in members:
            parts = intake._member_path(m.filename)
            if parts is None:
                refused.append(m.filename)
                continue
            if not parts or m.is_dir():
                continue
            if intake._is_symlink(m):
                links.append(m.filename)
                continue
            dest = os.path.join(folder, *parts)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.lexists(dest):
                refused.append(m.filename)  # a second file of one path: the first stays
                continue
            try:
                with zf.open(m) as src, open(dest, "xb") as out:
                    size = 0
                    while chunk := src.read(1 << 16):
                        size += len(chunk)
                        if size > intake.MAX_ZIP_BYTES:
                            raise ValueError("too large")
                        out.write(chunk)
            except Exception:  # noqa: BLE001 - one bad member costs only itself
                os.unlink(dest)
                refused.append(m.filename)
        if refused:
            warnings.append(_note("zip 里未解压的文件", "files of the zip not unpacked") + ": " + intake._list(refused, 5))
        if links:
            warnings.append(_note("未解压符号链接", "symbolic links not unpacked") + ": " + intake._list(links, 5))
    return ""
