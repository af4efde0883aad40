"""A class's zip (the platform's download zipped, or any folder of the class
zipped) unpacked into the work folder before ``downloads.read`` reads it.

A class's zip is larger than a student's, and has limits of its own
(``MAX_CLASS_ZIP_*``). Only its regular files are unpacked, at safe
paths, checked for size while they are read; nothing is followed through
a symbolic link. A member that cannot be unpacked (a file and a folder of
one name, a name given twice, too large) costs only itself: it is a note
for the student it belongs to (``charge``), who is listed even when
nothing of theirs is left to grade.
"""

import os
import stat
import zipfile

from grader.teacher.intake import canvas, moodle, submissions
from grader.teacher.intake.submissions import Entry, _note, printable

# A class's zip is larger than a student's: these bound what one may unpack.
MAX_CLASS_ZIP_BYTES = 1024**3
MAX_CLASS_ZIP_MEMBERS = 50_000
MAX_CLASS_ZIP_UNPACKED = 2 * 1024**3

# Why a member of a class zip was not unpacked: (zh, en).
TAKEN = ("它的路径已被占用：同名的文件和文件夹，或同一个名字出现两次", "its path is taken: a file and a folder of one name, or one name twice")
TOO_LARGE = ("解压后过大", "too large unpacked")
UNREADABLE = ("无法解压", "cannot be unpacked")


def unpack(path: str, folder: str, warnings: list[str], lost: list) -> str:
    """Unpack a class's zip into ``folder``: its regular files, at safe
    paths, checked for size as they are read. Returns why not, or "".
    A member that cannot be unpacked costs only itself: ``lost`` gets its
    path (as parts) and why, for the student it belongs to (``charge``)."""
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


def charge(kind: str, entries: list[Entry], lost: list, under: list[str]) -> list[Entry]:
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
    return sorted(entries, key=lambda e: (len(e.student_id), e.student_id) if kind == moodle.KIND else e.student_id)


def _owner(kind: str, parts: list[str]) -> str | None:
    """The student id a path in the download belongs to, as ``downloads.read``
    keys them (by the name at its top); None if none."""
    top = parts[0]
    if kind == canvas.KIND:
        f = canvas.canvas_file(top)
        return f.student_id if f else None
    if kind == moodle.KIND:
        m = moodle.moodle_name(top)
        return m[1] if m else None
    if len(parts) == 1 and not (top.lower().endswith(".zip") and len(top) > 4):
        return None  # a file beside the students' folders: no one's
    return printable(top[:-4] if len(parts) == 1 else top)
