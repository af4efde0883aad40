"""A student's files as a platform's download holds them (Canvas's flat
files, Moodle's), graded as a student's folder is.

The files are copied into a folder per student under the work folder, by
the names the student gave them, and graded from there (``from_files``); a
student who sent a single zip has that zip read as ``submissions`` reads
any. Every rule of ``submissions`` holds: nothing followed through a
symbolic link, sizes checked while reading, bad input a note and never an
exception (``guarded``: one student's odd files never stop the batch).
"""

import os
import stat

from grader.teacher.intake import submissions
from grader.teacher.intake.submissions import FILENAMES, Entry, _note, printable


def from_files(root: str, sid: str, name: str, files: list[tuple[str, int, int | None, str]], work_dir: str, assignment, notes: list[str]) -> Entry:
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


def guarded(sid: str, name: str, read) -> Entry:
    """``read()``'s entry; a note instead if it fails: one student's odd
    files never stop the batch."""
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - a file that cannot be read is that student's note; the batch goes on
        return Entry(sid, None, [_note("无法读取，未评分", f"could not be read, not graded ({type(exc).__name__})")], printable(name or sid), name=printable(name))


def ignored(names: list[str], warnings: list[str], why_zh: str, why_en: str) -> None:
    if names:
        warnings.append(_note(f"忽略（{why_zh}）", f"ignored ({why_en})") + ": " + submissions._list(names, 5))


def is_file(root: str, name: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(os.path.join(root, name)).st_mode)
    except OSError:
        return False


def is_dir(root: str, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(os.path.join(root, name)).st_mode)
    except OSError:
        return False
