"""Moodle's "Download all submissions", zip or folder, read as one submission
per student (``downloads.read`` tells it from the other kinds).

It holds one folder per student and plugin,
``<Full Name>_<participant id>_assignsubmission_file`` (an older Moodle
adds a ``_``), or flat files
``<Full Name>_<participant id>_assignsubmission_file_<file name>``
(moodle, ``mod/assign/classes/downloader.php``). Students are keyed by
participant id, the number of the grading worksheet's "Participant N"
(``moodle_worksheet``). Online text is not graded: the student's note
says so. A student's folder is graded as any student's folder is, the zip
in it as any zip; flat files as ``platform_files`` grades them.
"""

import os
import re

from grader.teacher.intake import platform_files, submissions
from grader.teacher.intake.submissions import QUIET, Entry, _note, printable

KIND = "Moodle"

MOODLE_NAME = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<file>.*))?$", re.S)


def moodle_name(name: str) -> tuple[str, str, str, str] | None:
    """(full name, participant id, plugin, file name or "") of a Moodle
    download's top-level name; None if it is not one. Moodle turns ``_`` in
    a name into a space, so the first ``_`` ends the name."""
    m = MOODLE_NAME.match(name)
    if m is None:
        return None
    return m["name"], m["id"], m["plugin"], m["file"] or ""


def students(root: str, names: list[str], work_dir: str, assignment, warnings: list[str]) -> list[Entry]:
    """The students of the download in ``root`` (``names``: what lies there),
    by participant id; ``warnings`` gets what is not part of the download."""
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
        elif platform_files.is_dir(root, n):
            s["folders"].append(n)
        else:
            s["files"].append((filename, 0, None, n))
    platform_files.ignored(others, warnings, "不是 Moodle 下载的文件", "not part of a Moodle download")
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
            entry = platform_files.guarded(sid, s["name"], lambda: _moodle_folder(root, s["folders"][0], sid, work_dir, assignment))
        else:
            entry = platform_files.guarded(sid, s["name"], lambda: platform_files.from_files(root, sid, s["name"], s["files"], work_dir, assignment, []))
        entry.name = printable(s["name"])
        entry.notes = [*notes, *entry.notes]
        entries.append(entry)
    return entries


def _moodle_folder(root: str, folder: str, sid: str, work_dir: str, assignment) -> Entry:
    """A student's file folder: graded as a folder, or the zip in it when
    that is all it holds."""
    path = os.path.join(root, folder)
    try:
        inside = [n for n in os.listdir(path) if not n.startswith(".") and n not in QUIET]
    except OSError:
        inside = []
    zips = [n for n in inside if n.lower().endswith(".zip") and platform_files.is_file(path, n)]
    if len(inside) == 1 and zips:
        return submissions.from_zip(os.path.join(path, zips[0]), sid, f"{folder}/{zips[0]}", work_dir, assignment)
    return submissions.from_folder(path, sid, folder, assignment)
