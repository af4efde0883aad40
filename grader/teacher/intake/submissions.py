"""Finding the submissions in a batch folder: one per student, safely.

A student hands in any one of

- a folder ``DIR/<id>/`` with the exercise files (also in a nested
  ``exercises/`` folder, or any folder a few levels down);
- a zip ``DIR/<id>.zip`` (the same layouts inside);
- nbgrader's collected layout ``DIR/<id>/<assignment>/``, whose
  ``timestamp.txt`` (nbgrader's exchange writes it) gives the submission
  time when the whole class is in that layout (``_nbgrader_times``).

``discover`` returns one ``Entry`` per student id: the folder to grade (or
None when there is nothing to grade) and notes saying what was odd, one
item each until they are written (``notes_text``). Nothing in DIR is
followed through a symbolic link, run or changed; zips are unpacked only
into the work folder the caller gives, and only the exercise files, each
checked for size while it is unpacked (the sizes in a zip's header are the
zip's word, not a fact). A zip holding two files of the same path is refused
whole (which one to grade would be a guess), and so is an id that differs
from an earlier one (in sorted order) only in case or Unicode normalisation:
the two would share one output folder on macOS or Windows.
Bad input becomes a note, never an exception.
"""

import hashlib
import os
import stat
import tempfile
import unicodedata
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field

from grader.exercises import EXERCISES
from grader.handin.submission import MAX_FILE_BYTES, MAX_NOTEBOOK_BYTES
from grader.text import visible

# An exercise is handed in as <id>.py or as a notebook, <id>.ipynb (or both:
# the grader says which it graded, handin/submission.py).
FILENAMES = {**{e.filename: e.id for e in EXERCISES}, **{e.notebook: e.id for e in EXERCISES}}
MAX_ZIP_BYTES = 64 * 1024**2  # the zip file itself
MAX_ZIP_MEMBERS = 1000
MAX_ZIP_UNPACKED = 64 * 1024**2  # the sum of the sizes the zip declares
MAX_DEPTH = 3  # how far below DIR/<id>/ exercise files are looked for
MAX_WALK_ENTRIES = 5000  # names looked at in one student's folder
# Left without a note: what editors, operating systems and nbgrader add.
QUIET = {".DS_Store", "Thumbs.db", "desktop.ini", "timestamp.txt", "__MACOSX", "__pycache__", ".ipynb_checkpoints"}
# Names the batch writes in OUT (each its own ``folder_key``): a student
# folder of that name would take their place.
RESERVED = {"grades.csv", "gradebook.db", "report.html", "report.md", "similar.json", "similar.html"}


@dataclass
class Entry:
    student_id: str  # as the teacher named it (the folder's or zip's name)
    folder: str | None  # the folder to grade, or None: nothing to grade
    notes: list[str] = field(default_factory=list)  # what was odd, one item per note (``notes_text`` joins them); empty when nothing was
    display: str = ""  # the submission as messages name it, relative to DIR
    digest: str | None = None  # sha256 of the exercise files graded (see ``digest``)
    same_as: str | None = None  # refused: the earlier id whose output folder this one would share (see ``folder_key``)
    name: str = ""  # the student's name, when the platform's download gives one (Canvas, Moodle)
    submitted_at: str = ""  # when they handed in, as the source wrote it ("" when it says nothing)
    time_source: str = ""  # where ``submitted_at`` came from ("timestamp.txt", ...)
    marked_late: bool | None = None  # the platform's word "late" without the time (Canvas); None: it says nothing

    def __iter__(self):
        """``student_id, folder, notes = entry``"""
        return iter((self.student_id, self.folder, self.notes))


NOTES_SEPARATOR = "; "


def notes_text(notes) -> str:
    """A student's notes as one text: grades.csv's note cell, results.json's
    ``note``, the terminal. Notes stay a list until here and are never split
    back from this text: one note may itself hold the separator (a file
    named ``a; b.py``)."""
    return NOTES_SEPARATOR.join(notes)


def printable(name: str) -> str:
    """A file name as text: bytes that were not UTF-8 (kept by Python as
    surrogates) are shown as ``\\xNN``; control characters are escaped
    (``text.visible``). Every name from DIR, a zip's included, becomes text
    here, before any note, id or message holds it."""
    raw = os.fsencode(name) if isinstance(name, str) else name
    return visible(raw.decode("utf-8", errors="backslashreplace"), name=True)


def folder_key(name: str) -> str:
    """``name`` as a case-insensitive file system compares it (macOS's and
    Windows' by default): case folded, and composed and decomposed forms of
    the same letter alike (macOS treats "é" and "e" + U+0301 as one name).
    Unicode's canonical caseless match: NFD, casefold, NFD again."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def safe_name(student_id: str) -> str:
    """The student's folder name under OUT: the id itself when it is a
    harmless file name (spaces and Chinese are), else a cleaned-up form with a
    short hash of the id, so two ids never share a folder. A name the batch
    writes in OUT is not harmless in any case (``Grades.csv`` is
    ``grades.csv`` on macOS); of two ids that differ only in case,
    ``discover`` refuses one."""
    plain = (
        student_id
        and student_id == student_id.strip()
        and not student_id.startswith(".")
        and folder_key(student_id) not in RESERVED
        and "/" not in student_id
        and "\\" not in student_id
        and all(c.isprintable() for c in student_id)
        and len(student_id.encode("utf-8", errors="replace")) <= 200
    )
    if plain:
        try:
            student_id.encode("utf-8")
            return student_id
        except UnicodeEncodeError:
            pass
    cleaned = "".join(c if (c.isalnum() or c in "-_") and c.isprintable() else "_" for c in student_id)[:60]
    tag = hashlib.sha256(student_id.encode("utf-8", errors="surrogateescape")).hexdigest()[:8]
    return f"_{cleaned}-{tag}"


def _note(zh: str, en: str) -> str:
    return f"{zh} / {en}"


def _list(names: list[str], most: int = 3) -> str:
    shown = ", ".join(printable(n) for n in names[:most])
    return shown + (f" … (+{len(names) - most})" if len(names) > most else "")


def digest(sources: dict[str, bytes | str]) -> str:
    """One hash for what is graded: each exercise file's bytes, or why there
    are none ("missing", "symlink", "too large"...); ``sources`` is keyed by
    file name. A notebook counts only where there is one, so a submission
    of .py files keeps the hash it had before notebooks were graded."""
    h = hashlib.sha256()
    for ex in EXERCISES:
        for filename, key in ((ex.filename, ex.id), (ex.notebook, ex.notebook)):
            value = sources.get(filename, "missing")
            if key == ex.notebook and value == "missing":
                continue
            h.update(key.encode() + b"\0")
            if isinstance(value, bytes):
                h.update(b"file\0" + len(value).to_bytes(8, "big") + value)
            else:
                h.update(b"none\0" + value.encode() + b"\0")
    return h.hexdigest()


def _limit(filename: str) -> int:
    """The largest exercise file of this name that is read: a notebook keeps its outputs."""
    return MAX_NOTEBOOK_BYTES if filename.endswith(".ipynb") else MAX_FILE_BYTES


def _rank(relpath: str, count: int, assignment: str | None):
    """Which folder of exercise files to grade: one in the assignment's
    folder first, then the one with most exercise files, then the shallowest."""
    parts = [p for p in relpath.split("/") if p]
    return (0 if assignment and assignment in parts else 1, -count, len(parts), relpath)


def _choose(counts: dict[str, int], assignment: str | None, notes: list) -> str:
    """The folder to grade, of those with exercise files (folder -> how
    many), by ``_rank``; the others are noted as not graded."""
    ranked = sorted(counts, key=lambda rel: _rank(rel, counts[rel], assignment))
    if ranked[1:]:
        notes.append(_note("另有练习文件未评分，在", "other exercise files not graded, in") + ": " + _list([r + "/" for r in ranked[1:]]))
    return ranked[0]


def _note_ignored(junk: list[str], notes: list) -> None:
    if junk:
        notes.append(_note("忽略", "ignored") + ": " + _list(junk))


def _read_regular(path: str, notes: list) -> bytes | str:
    """The file's bytes, read without following a symbolic link; or a word
    for why not (the grader reports the same file in its own words)."""
    display = printable(os.path.basename(path))
    limit = _limit(path)
    try:
        info = os.lstat(path)
    except OSError:
        return "missing"
    if stat.S_ISLNK(info.st_mode):
        notes.append(_note(f"{display} 是符号链接，未评分", f"{display} is a symbolic link: not graded"))
        return "symlink"
    if not stat.S_ISREG(info.st_mode):
        notes.append(_note(f"{display} 不是普通文件，未评分", f"{display} is not a regular file: not graded"))
        return "not a file"
    if info.st_size > limit:
        notes.append(_note(f"{display} 超过 {limit >> 20} MB，未评分", f"{display} is over {limit >> 20} MB: not graded"))
        return f"too large {info.st_size}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        notes.append(_note(f"无法读取 {display}", f"cannot read {display}: {exc.strerror}"))
        return "unreadable"
    if len(data) > limit:
        notes.append(_note(f"{display} 超过 {limit >> 20} MB，未评分", f"{display} is over {limit >> 20} MB: not graded"))
        return "too large"
    return data


def _walk(root: str):
    """Folders under ``root`` (relative path, file names, other names), at
    most MAX_DEPTH deep, never through a symbolic link, at most
    MAX_WALK_ENTRIES names in all."""
    seen = 0
    stack = [("", 0)]
    out = []
    truncated = False
    while stack:
        rel, depth = stack.pop()
        files, others = [], []
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                for item in it:
                    seen += 1
                    if seen > MAX_WALK_ENTRIES:
                        truncated = True
                        break
                    name = item.name
                    if name in QUIET or name.endswith(".pyc"):
                        continue
                    if name in FILENAMES:
                        files.append(name)  # whatever it is: the grader names the problem
                    elif item.is_dir(follow_symlinks=False):
                        if name.startswith(".") or depth >= MAX_DEPTH:
                            continue
                        stack.append((f"{rel}/{name}" if rel else name, depth + 1))
                    elif not name.startswith("."):
                        others.append(f"{rel}/{name}" if rel else name)
        except OSError:
            pass
        out.append((rel, files, others))
        if truncated:
            break
    return out, truncated


def from_folder(root: str, student_id: str, name: str, assignment: str | None) -> Entry:
    notes: list[str] = []
    folders, truncated = _walk(root)
    if truncated:
        notes.append(_note(f"文件夹内文件过多，只查看了前 {MAX_WALK_ENTRIES} 个", f"too many files: only the first {MAX_WALK_ENTRIES} were looked at"))
    with_files = {rel: len(files) for rel, files, _ in folders if files}
    junk = sorted(o for _, _, others in folders for o in others)
    if not with_files:
        notes.append(_note("没有练习文件", "no exercise files"))
        _note_ignored(junk, notes)
        return Entry(student_id, None, notes, printable(name))
    rel = _choose(with_files, assignment, notes)
    folder = os.path.join(root, rel) if rel else root
    sources = {}
    for filename in FILENAMES:
        sources[filename] = _read_regular(os.path.join(folder, filename), notes)
    _note_ignored(junk, notes)
    display = printable(name) + (("/" + printable(rel)) if rel else "")
    return Entry(student_id, folder, notes, display, digest(sources))


def _nbgrader_timestamp(student_dir: str, assignment: str | None, graded: str | None) -> str:
    """What nbgrader's ``timestamp.txt`` says, read only where nbgrader's
    exchange writes it: ``<id>/<assignment>/timestamp.txt``, for a student
    graded from that folder. ``nbgrader submit`` copies the student's folder
    and then writes the file at its top, over any the student had
    (exchange/default/submit.py); ``nbgrader collect`` copies it to
    ``submitted/<id>/<assignment>/`` (collect.py). A timestamp.txt anywhere
    else is the student's own. Its format is ``Exchange.timestamp_format``,
    "%Y-%m-%d %H:%M:%S.%f %Z"; "" if there is none."""
    if not assignment or graded is None:
        return ""
    top = os.path.join(student_dir, assignment)
    try:
        if not stat.S_ISDIR(os.lstat(top).st_mode) or os.path.commonpath([top, graded]) != top:
            return ""
    except (OSError, ValueError):
        return ""
    data = _read_regular(os.path.join(top, "timestamp.txt"), [])
    if not isinstance(data, bytes) or len(data) > 200:
        return ""
    return data.decode("utf-8", errors="replace").strip()


def _nbgrader_times(root: str, entries: list, given: dict, assignment: str | None, warnings: list) -> None:
    """Each entry's time from nbgrader's ``timestamp.txt``, when ``root`` is
    nbgrader's collected layout as a whole: every student a folder
    ``<id>/<assignment>/``. In a class of folders the students made
    themselves, that file is theirs to write, and no student can make the
    others' folders nbgrader's: then no time is taken from it (and the batch
    says whose were left)."""
    found = {}
    for e in entries:
        kind, name = given[e.student_id][0]
        if kind == "folder" and e.same_as is None and len(given[e.student_id]) == 1:
            found[e.student_id] = _nbgrader_timestamp(os.path.join(root, name), assignment, e.folder)
    folders = {sid: given[sid][0][1] for sid in found}
    nbgrader = assignment is not None and len(found) == len(entries) and all(_is_real_dir(os.path.join(root, n, assignment)) for n in folders.values())
    if nbgrader:
        for e in entries:
            if found.get(e.student_id):
                e.submitted_at, e.time_source = found[e.student_id], "timestamp.txt"
    elif any(found.values()):
        warnings.append(
            _note(
                "未采用 timestamp.txt：这不是 nbgrader 收集的布局（每名学生一个 <id>/<assignment>/ 文件夹），学生自己就能写这个文件",
                "timestamp.txt not used: this is not nbgrader's collected layout (a folder <id>/<assignment>/ for every student), where a student can write that file",
            )
            + ": "
            + _list(sorted(sid for sid, when in found.items() if when), 5)
        )


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _member_path(name: str) -> list[str] | None:
    """A member's path as parts, or None if it points outside the folder it
    would be unpacked into (absolute, a drive, ``..``)."""
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts) or "\0" in name:
        return None
    return parts


class _Refused(Exception):
    """A zip that is not graded at all; ``note`` says why."""

    def __init__(self, zh: str, en: str):
        super().__init__(en)
        self.note = _note(zh, en)


@dataclass
class _ZipListing:
    """A zip's members, sorted by what becomes of them."""

    candidates: dict[str, dict[str, zipfile.ZipInfo]] = field(default_factory=dict)  # folder -> exercise file name -> member
    refused: list[str] = field(default_factory=list)  # paths that point outside the folder
    links: list[str] = field(default_factory=list)  # symbolic links, never unpacked
    junk: list[str] = field(default_factory=list)  # other files, listed as ignored
    same: set[str] = field(default_factory=set)  # paths given to two files or more


def from_zip(path: str, student_id: str, name: str, work_dir: str, assignment: str | None) -> Entry:
    display = printable(name)
    try:
        with _opened_zip(path) as (zf, members):
            _refuse_bombs(members)
            listing = _list_members(members)
            notes = _listing_notes(listing)
            if not listing.candidates:
                notes.append(_note("zip 里没有练习文件", "no exercise files in the zip"))
                _note_ignored(listing.junk, notes)
                return Entry(student_id, None, notes, display)
            rel = _choose({r: len(files) for r, files in listing.candidates.items()}, assignment, notes)
            target, sources = _extract(zf, listing.candidates[rel], work_dir, notes)
    except _Refused as refused:
        return Entry(student_id, None, [refused.note], display)
    _note_ignored(listing.junk, notes)
    display = display + (("/" + printable(rel)) if rel else "")
    return Entry(student_id, target, notes, display, digest(sources))


@contextmanager
def _opened_zip(path: str):
    """The zip and its members, opened without following a symbolic link;
    ``_Refused`` if it cannot be read, is too large or is no zip."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise _Refused("无法读取 zip", f"cannot read the zip: {exc.strerror}") from None
    if info.st_size > MAX_ZIP_BYTES:
        raise _Refused(f"zip 超过 {MAX_ZIP_BYTES >> 20} MB，未评分", f"zip over {MAX_ZIP_BYTES >> 20} MB: not graded")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        fh = os.fdopen(fd, "rb")
    except OSError as exc:
        raise _Refused("无法读取 zip", f"cannot read the zip: {exc.strerror}") from None
    with fh:
        try:
            zf = zipfile.ZipFile(fh)
            members = zf.infolist()
        except Exception:  # noqa: BLE001 - any way a zip can be broken
            raise _Refused("不是有效的 zip 文件", "not a valid zip file") from None
        with zf:
            yield zf, members


def _refuse_bombs(members: list[zipfile.ZipInfo]) -> None:
    """Refuse a zip of too many members, or one that says it unpacks too large."""
    if len(members) > MAX_ZIP_MEMBERS:
        raise _Refused(f"zip 内文件过多（{len(members)} 个），未评分", f"too many files in the zip ({len(members)} > {MAX_ZIP_MEMBERS}): not graded")
    if sum(m.file_size for m in members) > MAX_ZIP_UNPACKED:
        raise _Refused(f"zip 解压后超过 {MAX_ZIP_UNPACKED >> 20} MB，未评分", f"the zip unpacks to over {MAX_ZIP_UNPACKED >> 20} MB: not graded")


def _list_members(members: list[zipfile.ZipInfo]) -> _ZipListing:
    """Sort the members: unsafe paths, quiet names, links, exercise files
    (by folder, at most MAX_DEPTH deep) and the rest."""
    listing = _ZipListing()
    paths: set[str] = set()  # every file's path, as normalised
    for m in members:
        parts = _member_path(m.filename)
        if parts is None:
            listing.refused.append(m.filename)
            continue
        if not parts or m.is_dir():
            continue
        path = "/".join(parts)
        if path in paths:
            listing.same.add(path)
        paths.add(path)
        if any(p in QUIET or p.startswith(".") for p in parts) or parts[-1].endswith(".pyc"):
            continue
        if _is_symlink(m):
            listing.links.append(m.filename)
            continue
        if parts[-1] in FILENAMES and len(parts) <= MAX_DEPTH + 1:
            listing.candidates.setdefault("/".join(parts[:-1]), {})[parts[-1]] = m
        else:
            listing.junk.append(path)
    return listing


def _listing_notes(listing: _ZipListing) -> list[str]:
    """The notes for what was not unpacked; ``_Refused`` for two files of one path."""
    if listing.same:
        # Unpacked, the last would win: refuse the zip rather than guess.
        shown = _list(sorted(listing.same))
        raise _Refused(f"zip 内有同名文件（{shown}），未评分", f"files of the same name in the zip ({shown}): not graded")
    notes = []
    if listing.refused:
        notes.append(_note("拒绝了不安全的路径", "refused unsafe paths") + ": " + _list(listing.refused))
    if listing.links:
        notes.append(_note("未解压符号链接", "symbolic links not unpacked") + ": " + _list(listing.links))
    return notes


def _extract(zf: zipfile.ZipFile, files: dict[str, zipfile.ZipInfo], work_dir: str, notes: list) -> tuple[str, dict[str, bytes | str]]:
    """Unpack the chosen exercise files into a new folder under ``work_dir``:
    the folder, and each exercise's bytes (or why there are none)."""
    target = tempfile.mkdtemp(prefix="zip-", dir=work_dir)
    sources: dict[str, bytes | str] = {}
    for filename, m in sorted(files.items()):
        sources[filename] = _unpack(zf, m, os.path.join(target, filename), notes)
    return target, sources


def _unpack(zf: zipfile.ZipFile, member: zipfile.ZipInfo, dest: str, notes: list) -> bytes | str:
    """Unpack one member to ``dest`` (a new file), stopping as soon as it is
    larger than an exercise file may be, whatever the header says."""
    shown = printable(member.filename)
    limit = _limit(dest)
    if member.file_size > limit:
        notes.append(_note(f"{shown} 超过 {limit >> 20} MB，未评分", f"{shown} is over {limit >> 20} MB: not graded"))
        return "too large"
    chunks, size = [], 0
    try:
        with zf.open(member) as src:
            while True:
                chunk = src.read(64 * 1024)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    notes.append(_note(f"{shown} 解压后超过 {limit >> 20} MB，未评分", f"{shown} unpacks to over {limit >> 20} MB: not graded"))
                    return "too large"
                chunks.append(chunk)
    except Exception:  # noqa: BLE001 - encrypted, bad CRC, unknown compression...
        notes.append(_note(f"无法解压 {shown}", f"cannot unpack {shown}"))
        return "unreadable"
    data = b"".join(chunks)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return data


def discover(root: str, work_dir: str, assignment: str | None = "attention", exclude: tuple = (), read_folder=None) -> tuple[list[Entry], list[str]]:
    """The submissions in ``root``, one ``Entry`` per student id, sorted by
    id; and warnings about names in ``root`` that are no submission.

    An id with the same ``folder_key`` as an earlier one (``Alice`` then
    ``alice``) is refused, its ``same_as`` naming the earlier: it is not
    looked into, and gets nothing written in a folder of its own, which
    would be the earlier one's.

    Zips are unpacked into fresh folders under ``work_dir``. ``exclude``:
    absolute paths to pass over (the output folder, if it is inside ``root``).
    ``read_folder(path, id, name, assignment)`` reads a student's folder
    (default ``from_folder``; a cloned repository: ``classroom_repos``).
    """
    read_folder = read_folder or from_folder
    warnings: list[str] = []
    found: dict[str, list[tuple[str, str]]] = {}  # id -> [(kind, name)]
    os.makedirs(work_dir, exist_ok=True)
    excluded = {os.path.realpath(p) for p in exclude}
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        return [], [f"cannot read {root}: {exc.strerror}"]
    for name in names:
        if name.startswith(".") or name in QUIET:
            continue
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if os.path.realpath(path) in excluded and not stat.S_ISLNK(info.st_mode):
            continue
        if stat.S_ISLNK(info.st_mode):
            kind, sid = "symlink", name[:-4] if name.lower().endswith(".zip") else name
        elif stat.S_ISDIR(info.st_mode):
            kind, sid = "folder", name
        elif stat.S_ISREG(info.st_mode) and name.lower().endswith(".zip") and len(name) > 4:
            kind, sid = "zip", name[:-4]
        else:
            warnings.append(_note("忽略（不是文件夹或 zip）", "ignored (not a folder or a zip)") + ": " + printable(name))
            continue
        found.setdefault(printable(sid), []).append((kind, name))
    entries = []
    first_of: dict[str, str] = {}  # folder_key(id) -> the first id with it
    for sid in sorted(found):
        given = found[sid]
        first = first_of.setdefault(folder_key(sid), sid)
        if first != sid:
            note = _note(
                f"与 {first} 只有大小写或 Unicode 写法不同（会共用一个输出文件夹），未评分", f"differs from {first} only in case or Unicode form (they would share an output folder): not graded"
            )
            entries.append(Entry(sid, None, [note], sid, same_as=first))
            continue
        if len(given) > 1:
            shown = _list([n for _, n in given], 5)
            entries.append(Entry(sid, None, [_note(f"重复提交（{shown}），均未评分", f"given twice ({shown}): neither graded")], sid))
            continue
        kind, name = given[0]
        path = os.path.join(root, name)
        try:
            if kind == "symlink":
                entry = Entry(sid, None, [_note("符号链接，未跟随，未评分", "a symbolic link: not followed, not graded")], printable(name))
            elif kind == "zip":
                entry = from_zip(path, sid, name, work_dir, assignment)
            else:
                entry = read_folder(path, sid, name, assignment)
        except Exception as exc:  # noqa: BLE001 - one student's odd input must not stop the batch
            entry = Entry(sid, None, [_note("无法读取，未评分", f"could not be read, not graded ({type(exc).__name__})")], printable(name))
        if printable(name) != name:
            odd = _note("名字含非 UTF-8 或控制字符，已转义", "the name is not plain UTF-8 text: shown escaped")
            entry.notes = [odd, *entry.notes]
        entries.append(entry)
    _nbgrader_times(root, entries, found, assignment, warnings)
    return entries, warnings
