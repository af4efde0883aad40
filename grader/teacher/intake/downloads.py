"""What a learning platform hands the teacher, read as one submission per
student: ``read(DIR)`` for ``batch`` and ``similar``.

DIR (a folder, or a zip of the whole class) is one of

- a Canvas "Download Submissions" zip or its folder: flat files named
  ``<name>[_LATE]_<user id>_<attachment id>_<file name>`` (canvas-lms,
  ``lib/content_zipper.rb``: the name is the sortable name, lowercased,
  without what is not a word character; ``LATE`` when the submission was
  late; ``anon_<id>`` in place of name and user id under anonymous
  grading). Students are keyed by user id. The student chooses the name
  and the file name on either side of Canvas's fields, and either may hold
  numbers between underscores: a file name is read as Canvas wrote it where
  that is sure (``canvas_readings``, ``_choose``, ``_canvas_readings``),
  and a file that could be one student's or another's is graded for
  neither, each told (the teacher renames it). A file the student uploaded
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
- a folder of GitHub Classroom's cloned student repositories (``gh
  classroom clone student-repos``): ``classroom_repos``, keyed by the
  repository's name, timed by its last commit (the student's word);
- anything else is ``submissions.discover``'s: a folder or zip per student, or
  nbgrader's collected layout (nbgrader's ``timestamp.txt`` gives the time;
  no file in a platform's download does: a student can put one there).

A platform's files are copied into a folder per student under the work
folder, by their original names, and graded from there; a student who sent
a single zip has that zip read as ``intake`` reads any. Every rule of
``intake`` holds: nothing followed through a symbolic link, sizes checked
while reading, bad input a note and never an exception. A class zip's
member that cannot be unpacked (a file and a folder of one name, a name
given twice, too large) is a note for the student it belongs to.
"""
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field

from grader.teacher.intake import classroom_repos, submissions
from grader.teacher.intake.submissions import FILENAMES, QUIET, Entry, _note, printable

CANVAS = "Canvas"
MOODLE = "Moodle"
# A class's zip is larger than a student's: these bound what one may unpack.
MAX_CLASS_ZIP_BYTES = 1024**3
MAX_CLASS_ZIP_MEMBERS = 50_000
MAX_CLASS_ZIP_UNPACKED = 2 * 1024**3

KINDS = {
    CANVAS: "Canvas 的“下载提交” / Canvas's Download Submissions",
    MOODLE: "Moodle 的“下载所有提交” / Moodle's Download all submissions",
    classroom_repos.KIND: "GitHub Classroom 的学生仓库（gh classroom clone student-repos） / GitHub Classroom's student repositories (gh classroom clone student-repos)",
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


@dataclass(frozen=True)
class CanvasFile:
    name: str  # "smithjohn"; "" under anonymous grading
    student_id: str  # the user id, or "anon_<id>"
    late: bool
    attachment: int | None  # None: a text entry or a URL (text.html, link.html)
    filename: str  # as the student named it
    uid_at: int = 0  # which "_"-separated part of the file name the user id starts at
    aid_at: int = 0  # ... and which holds the attachment id (or "text.html")

    @property
    def prefix(self) -> tuple[str, bool]:
        """What Canvas writes before the user id, the same on every file of one student."""
        return self.name, self.late


def _number(part: str) -> bool:
    return part.isascii() and part.isdigit()


def canvas_readings(name: str) -> list[CanvasFile]:
    """Every way ``name`` reads as a file of Canvas's download, left to right.

    Canvas writes ``<name>[_LATE]_<user id>_<attachment id>_<file name>``
    (content_zipper.rb, ``get_filename`` and ``add_upload_submission``):
    the name is the sortable name, lowercased (so no ``LATE`` and no capital
    is in it), with what is not a word character taken out; ``_<digits>_``
    is made ``<digits>`` first (``sanitize_user_name``), but a name may still
    end in ``_<digits>`` (``zz_4242``) and, through the characters taken out
    after, hold ``_<digits>_`` too. The student chooses both their name and
    their file's, so one file name may read several ways: ``_choose`` and
    ``_canvas`` decide, or refuse to."""
    parts = name.split("_")
    found = []
    for i, part in enumerate(parts):
        if _number(part):
            sid, head, aid_at = part, parts[:i], i + 1
        elif part == "anon" and i + 1 < len(parts) and parts[i + 1].isascii() and parts[i + 1].isalnum():
            sid, head, aid_at = "anon_" + parts[i + 1], parts[:i], i + 2
        else:
            continue
        late = bool(head) and head[-1] == "LATE"
        head = head[:-1] if late else head
        # A name is always written (maybe empty: "_101_..."), and none under anonymous grading.
        if bool(head) == sid.startswith("anon_") or any("A" <= c <= "Z" for c in "_".join(head)):
            continue
        rest = parts[aid_at:]
        if len(rest) > 1 and _number(rest[0]) and "_".join(rest[1:]):
            found.append(CanvasFile("_".join(head), sid, late, int(rest[0]), "_".join(rest[1:]), i, aid_at))
        elif rest in (["text.html"], ["link.html"]):
            found.append(CanvasFile("_".join(head), sid, late, None, rest[0], i, aid_at))
    return found


def _choose(readings: list[CanvasFile]) -> CanvasFile | None:
    """The reading of a file name to believe; None if there is none, or no
    sure one.

    Of two readings where the right one's user id is the part the left one
    takes for the attachment id, and the right one's file is an exercise
    file (``zz_4242_101_5000_ex0_weighted_sum.py``: user 4242 with a file
    "5000_ex0_weighted_sum.py", or user 101 with ex0), the right one: had
    the left one been the truth, the file (no exercise file then) would go
    to a user id equal to the student's own attachment id, which no name
    can arrange. Any other choice could give one student's file to a user
    id another student wrote into their name or file name (a zip named
    ``2024_hw.zip`` reads two ways as well): refused."""
    if len(readings) == 1:
        return readings[0]
    if len(readings) == 2:
        left, right = sorted(readings, key=lambda r: r.uid_at)
        if left.attachment is not None and right.uid_at == left.aid_at and _resubmitted(right.filename)[0] in FILENAMES:
            return right
    return None


def canvas_file(name: str) -> CanvasFile | None:
    """A Canvas download's file name taken apart, if it reads one sure way."""
    return _choose(canvas_readings(name))


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
    except Exception as exc:  # noqa: BLE001 - a file that cannot be read is that student's note; the batch goes on
        return Entry(sid, None, [_note("无法读取，未评分", f"could not be read, not graded ({type(exc).__name__})")], printable(name or sid), name=printable(name))


# ------------------------------------------------------------------ read


def read(path: str, work_dir: str, assignment: str | None = "attention", exclude: tuple = ()) -> Download:
    """The submissions in ``path``, a folder or a zip of the whole class;
    what is unpacked or copied goes under ``work_dir``."""
    warnings: list[str] = []
    lost: list = []  # members of a class zip not unpacked: (path parts, why)
    under: list[str] = []  # the download's folder in the zip, if the zip has one
    os.makedirs(work_dir, exist_ok=True)
    if os.path.isfile(path) and not os.path.islink(path):
        folder = os.path.join(work_dir, "download")
        os.makedirs(folder, exist_ok=True)
        problem = _unpack_class(path, folder, warnings, lost)
        if problem:
            return Download("folders", [], [problem])
        path = folder
        inside = [n for n in os.listdir(folder) if n not in QUIET]
        if len(inside) == 1 and _is_dir(folder, inside[0]) and not moodle_name(inside[0]):
            path = os.path.join(folder, inside[0])  # a zip of the download's folder
            under = inside
    excluded = {os.path.realpath(p) for p in exclude}
    try:
        names = sorted(n for n in os.listdir(path) if not n.startswith(".") and n not in QUIET and os.path.realpath(os.path.join(path, n)) not in excluded)
    except OSError as exc:
        return Download("folders", [], [f"cannot read {path}: {exc.strerror}"])
    # A platform's layout when most names are its own: a folder per student
    # with one odd file in it stays a folder per student.
    canvas = [n for n in names if canvas_readings(n) and _is_file(path, n)]
    moodle = [n for n in names if moodle_name(n)]
    if len(canvas) * 2 > len(names):
        entries = _canvas(path, names, work_dir, assignment, warnings)
        return Download(CANVAS, _charge(CANVAS, entries, lost, under), warnings)
    if len(moodle) * 2 > len(names):
        entries = _moodle(path, names, work_dir, assignment, warnings)
        return Download(MOODLE, _charge(MOODLE, entries, lost, under), warnings)
    if classroom_repos.looks_like(path, names):
        entries, more = classroom_repos.discover(path, work_dir, assignment, exclude)
        return Download(classroom_repos.KIND, _charge(classroom_repos.KIND, entries, lost, under), warnings + more)
    entries, more = submissions.discover(path, work_dir, assignment, exclude)
    kind = "nbgrader" if any(e.time_source == "timestamp.txt" for e in entries) else "folders"
    return Download(kind, _charge(kind, entries, lost, under), warnings + more)


def _is_file(root: str, name: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(os.path.join(root, name)).st_mode)
    except OSError:
        return False


def _ignored(names: list[str], warnings: list[str], why_zh: str, why_en: str) -> None:
    if names:
        warnings.append(_note(f"忽略（{why_zh}）", f"ignored ({why_en})") + ": " + submissions._list(names, 5))


def _canvas_readings(root: str, names: list[str]) -> dict[str, list[CanvasFile]]:
    """Each regular file's readings (``canvas_readings``), narrowed by what
    the rest of the download shows for sure:

    - a download is anonymous or not as a whole (the assignment's setting):
      ``anon_<id>`` readings where every file has one, else none;
    - every file of one student begins alike (``prefix``): a reading that
      gives a user id another name than the file read only one way gives
      it, is not the truth. The files read one way are read right, so this
      never drops a true reading, and is repeated while it narrows."""
    readings = {n: canvas_readings(n) for n in names if _is_file(root, n)}
    anonymous = all(any(r.student_id.startswith("anon_") for r in rs) for rs in readings.values() if rs)
    readings = {n: [r for r in rs if r.student_id.startswith("anon_") == anonymous] for n, rs in readings.items()}
    while True:
        sure: dict[str, set] = {}
        for rs in readings.values():
            if len(rs) == 1:
                sure.setdefault(rs[0].student_id, set()).add(rs[0].prefix)
        narrowed = False
        for n, rs in readings.items():
            kept = [r for r in rs if r.prefix in sure.get(r.student_id, {r.prefix})]
            if len(rs) > 1 and 0 < len(kept) < len(rs):
                readings[n], narrowed = kept, True
        if not narrowed:
            return readings


def _canvas(root: str, names: list[str], work_dir: str, assignment, warnings: list[str]) -> list[Entry]:
    by_student: dict[str, list[tuple[CanvasFile, str]]] = {}
    unsure: dict[str, list[str]] = {}  # user id -> files that may be theirs, or another's: graded for no one
    named: dict[str, str] = {}  # user id -> a name it is written with
    readings = _canvas_readings(root, names)
    others = [n for n in names if not readings.get(n)]
    for n, rs in readings.items():
        f = _choose(rs)
        if f is not None:
            by_student.setdefault(f.student_id, []).append((f, n))
            continue
        for r in rs:
            unsure.setdefault(r.student_id, []).append(n)
            named.setdefault(r.student_id, r.name)
        ids = sorted({r.student_id for r in rs})
        warnings.append(
            _note("文件名有多种读法，不知道是哪位学生的，未评分", "a file name that reads more than one way, so whose it is is unclear: graded for no one")
            + f": {printable(n)} (Canvas user id {' / '.join(ids)}); "
            + _note("在下载里给它改名，只留一种读法，再运行一次", "rename it in the download so that it reads one way, and run again")
        )
    _ignored(others, warnings, "不是 Canvas 下载的文件", "not a file of a Canvas download")
    entries = []
    for sid in sorted(set(by_student) | set(unsure)):
        files = by_student.get(sid, [])
        name = next((f.name for f, _ in files if f.name), named.get(sid, ""))
        notes: list[str] = []
        if sid in unsure:
            notes.append(
                _note("文件名有多种读法，可能是你的，也可能是别人的，未评分", "a file name that reads more than one way, as yours or another student's: not graded")
                + ": " + submissions._list(unsure[sid])
            )
        if not files:
            entries.append(Entry(sid, None, notes, printable(name or sid), name=printable(name)))
            continue
        texts = [f.filename for f, _ in files if f.attachment is None]
        if texts:
            notes.append(_note("文本或网址提交不评分", "a text entry or URL is not graded") + ": " + submissions._list(texts))
        uploads = [(f, n) for f, n in files if f.attachment is not None]
        given = [(*_resubmitted(f.filename), f.attachment, n) for f, n in uploads]
        entry = _guarded(sid, name, lambda: _platform_entry(root, sid, name, given, work_dir, assignment, notes))
        entry.marked_late, entry.name = any(f.late for f, _ in files), printable(name)
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
            shown = submissions._list(s["folders"] + [f[-1] for f in s["files"]], 5)
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
        return submissions.from_zip(os.path.join(path, zips[0]), sid, f"{folder}/{zips[0]}", work_dir, assignment)
    return submissions.from_folder(path, sid, folder, assignment)


def _platform_entry(root: str, sid: str, name: str, files: list[tuple[str, int, int | None, str]], work_dir: str, assignment, notes: list[str]) -> Entry:
    """A student whose files lie flat in ``root``: ``files`` is (the name
    they gave it, Canvas's ``-N`` of a name given again or 0, the upload's
    attachment id or None, its name in ``root``). Copied under the names
    they gave into a folder of the work folder, and graded there; a single
    zip is read as a zip. Of two files of one name the later upload wins:
    the larger ``-N``, then the larger attachment id."""
    display = f"{printable(name)} ({sid})" if name else sid
    if len(files) == 1 and files[0][0].lower().endswith(".zip"):
        entry = submissions.from_zip(os.path.join(root, files[0][3]), sid, display, work_dir, assignment)
        entry.notes = [*notes, *entry.notes]
        return entry
    chosen: dict[str, str] = {}
    older: list[str] = []
    for given, _, _, real in sorted(files, key=lambda f: (f[1], f[2] or 0, f[3])):
        if given in chosen:
            older.append(chosen[given])
        chosen[given] = real
    if older:
        notes.append(_note("同名文件上传了多次，只评最新的一份；未评", "a file of that name was uploaded more than once: the newest is graded, not") + ": " + submissions._list(older))
    folder = os.path.join(work_dir, "students", submissions.safe_name(sid))
    os.makedirs(folder, exist_ok=True)
    junk = []
    for given, real in sorted(chosen.items()):
        if given not in FILENAMES or "/" in given:
            junk.append(real)
            continue
        data = submissions._read_regular(os.path.join(root, real), notes)
        if isinstance(data, bytes):
            with open(os.path.join(folder, given), "wb") as f:
                f.write(data)
    entry = submissions.from_folder(folder, sid, display, assignment)
    entry.display = display
    submissions._note_ignored(junk, notes)
    entry.notes = [*notes, *entry.notes]
    return entry


# Why a member of a class zip was not unpacked: (zh, en).
TAKEN = ("它的路径已被占用：同名的文件和文件夹，或同一个名字出现两次", "its path is taken: a file and a folder of one name, or one name twice")
TOO_LARGE = ("解压后过大", "too large unpacked")
UNREADABLE = ("无法解压", "cannot be unpacked")


def _unpack_class(path: str, folder: str, warnings: list[str], lost: list) -> str:
    """Unpack a class's zip into ``folder``: its regular files, at safe
    paths, checked for size as they are read. Returns why not, or "".
    A member that cannot be unpacked costs only itself: ``lost`` gets its
    path (as parts) and why, for the student it belongs to (``_charge``)."""
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
            parts = submissions._member_path(m.filename)
            if parts is None:
                refused.append(m.filename)
            elif submissions._is_symlink(m):
                links.append(m.filename)
            elif parts and not m.is_dir():
                why = _unpack_member(zf, m, folder, parts)
                if why:
                    refused.append(m.filename)
                    lost.append((parts, why))
        if refused:
            warnings.append(_note("zip 里未解压的文件", "files of the zip not unpacked") + ": " + submissions._list(refused, 5))
        if links:
            warnings.append(_note("未解压符号链接", "symbolic links not unpacked") + ": " + submissions._list(links, 5))
    return ""


def _unpack_member(zf: zipfile.ZipFile, member: zipfile.ZipInfo, folder: str, parts: list[str]) -> tuple[str, str] | None:
    """Unpack one member at ``folder/parts``, never over what is there (of
    a file and a folder of one name, or one name twice, the first stays);
    None, or why not."""
    dest = folder
    try:
        for p in parts[:-1]:
            dest = os.path.join(dest, p)
            if not os.path.lexists(dest):
                os.mkdir(dest)
            elif not stat.S_ISDIR(os.lstat(dest).st_mode):
                return TAKEN
        dest = os.path.join(dest, parts[-1])
        if os.path.lexists(dest):
            return TAKEN
        out = open(dest, "xb")  # noqa: SIM115 - closed below; "x": a name the file system takes for one already there
    except FileExistsError:
        return TAKEN
    except OSError:
        return UNREADABLE  # a name too long, say
    try:
        with zf.open(member) as src, out:
            size = 0
            while chunk := src.read(1 << 16):
                size += len(chunk)
                if size > submissions.MAX_ZIP_BYTES:
                    raise ValueError("too large")
                out.write(chunk)
        return None
    except Exception as exc:  # noqa: BLE001 - a bad member (encrypted, bad CRC...) costs only itself
        out.close()
        try:
            os.unlink(dest)
        except OSError:
            pass
        return TOO_LARGE if isinstance(exc, ValueError) else UNREADABLE


def _charge(kind: str, entries: list[Entry], lost: list, under: list[str]) -> list[Entry]:
    """Each member of the class zip that could not be unpacked, a note for
    the student it belongs to (by the first part of its path below the
    download's folder, ``under``), who is listed even when nothing of
    theirs is left to grade. A member of no student's stays the batch's warning."""
    by_id = {e.student_id: e for e in entries}
    for parts, (zh, en) in lost:
        parts = parts[len(under) :] if parts[: len(under)] == under else parts
        sid = _owner(kind, parts) if parts else None
        if sid is None:
            continue
        if sid not in by_id:
            by_id[sid] = Entry(sid, None, [], printable(parts[0]))
            entries.append(by_id[sid])
        by_id[sid].notes.append(_note(f"班级 zip 里的这个文件没有解压（{zh}），未评分", f"not unpacked from the class zip ({en}), not graded") + ": " + printable("/".join(parts)))
    return sorted(entries, key=lambda e: (len(e.student_id), e.student_id) if kind == MOODLE else e.student_id)


def _owner(kind: str, parts: list[str]) -> str | None:
    """The student id a path in the download belongs to, as ``read`` keys
    them (by the name at its top); None if none."""
    top = parts[0]
    if kind == CANVAS:
        f = canvas_file(top)
        return f.student_id if f else None
    if kind == MOODLE:
        m = moodle_name(top)
        return m[1] if m else None
    if len(parts) == 1 and not (top.lower().endswith(".zip") and len(top) > 4):
        return None  # a file beside the students' folders: no one's
    return printable(top[:-4] if len(parts) == 1 else top)
