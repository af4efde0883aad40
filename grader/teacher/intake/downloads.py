"""What a learning platform hands the teacher, read as one submission per
student: ``read(DIR)`` for ``batch`` and ``similar``. This module only
tells the kinds apart; each is read in a module of its own.

DIR (a folder, or a zip of the whole class: ``class_zip`` unpacks it) is
one of

- a Canvas "Download Submissions" zip or its folder: flat files named
  ``<name>[_LATE]_<user id>_<attachment id>_<file name>``, keyed by user
  id (``canvas``);
- a Moodle "Download all submissions" zip or folder: a folder or flat
  files per student, ``<Full Name>_<participant id>_assignsubmission_file``,
  keyed by participant id (``moodle``);
- a folder of GitHub Classroom's cloned student repositories (``gh
  classroom clone student-repos``): ``classroom_repos``, keyed by the
  repository's name, timed by its last commit (the student's word);
- anything else is ``submissions.discover``'s: a folder or zip per student, or
  nbgrader's collected layout (nbgrader's ``timestamp.txt`` gives the time;
  no file in a platform's download does: a student can put one there).

A platform's files are graded as ``platform_files`` says. Every rule of
``submissions`` holds: nothing followed through a symbolic link, sizes
checked while reading, bad input a note and never an exception.
"""

import os
from dataclasses import dataclass, field

from grader.teacher.intake import canvas, class_zip, classroom_repos, moodle, platform_files, submissions
from grader.teacher.intake.submissions import QUIET, Entry

KINDS = {
    canvas.KIND: "Canvas 的“下载提交” / Canvas's Download Submissions",
    moodle.KIND: "Moodle 的“下载所有提交” / Moodle's Download all submissions",
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
        problem = class_zip.unpack(path, folder, warnings, lost)
        if problem:
            return Download("folders", [], [problem])
        path = folder
        inside = [n for n in os.listdir(folder) if n not in QUIET]
        if len(inside) == 1 and platform_files.is_dir(folder, inside[0]) and not moodle.moodle_name(inside[0]):
            path = os.path.join(folder, inside[0])  # a zip of the download's folder
            under = inside
    excluded = {os.path.realpath(p) for p in exclude}
    try:
        names = sorted(n for n in os.listdir(path) if not n.startswith(".") and n not in QUIET and os.path.realpath(os.path.join(path, n)) not in excluded)
    except OSError as exc:
        return Download("folders", [], [f"cannot read {path}: {exc.strerror}"])
    # A platform's layout when most names are its own: a folder per student
    # with one odd file in it stays a folder per student.
    in_canvas = [n for n in names if canvas.canvas_readings(n) and platform_files.is_file(path, n)]
    in_moodle = [n for n in names if moodle.moodle_name(n)]
    if len(in_canvas) * 2 > len(names):
        entries = canvas.students(path, names, work_dir, assignment, warnings)
        return Download(canvas.KIND, class_zip.charge(canvas.KIND, entries, lost, under), warnings)
    if len(in_moodle) * 2 > len(names):
        entries = moodle.students(path, names, work_dir, assignment, warnings)
        return Download(moodle.KIND, class_zip.charge(moodle.KIND, entries, lost, under), warnings)
    if classroom_repos.looks_like(path, names):
        entries, more = classroom_repos.discover(path, work_dir, assignment, exclude)
        return Download(classroom_repos.KIND, class_zip.charge(classroom_repos.KIND, entries, lost, under), warnings + more)
    entries, more = submissions.discover(path, work_dir, assignment, exclude)
    kind = "nbgrader" if any(e.time_source == "timestamp.txt" for e in entries) else "folders"
    return Download(kind, class_zip.charge(kind, entries, lost, under), warnings + more)
