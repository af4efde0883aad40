"""Where the course's folders are, and writing a file whole.

The paths are the one place that knows the layout of the course (or of the
student edition, which has the same folders without ``solutions/`` and
``checks/hidden/``; or of the student edition's wheel, installed with pip,
which carries its ``checks/``, ``exercises/`` and ``notebooks/`` inside the package, in
``grader/course_files/``: see ``grader/teacher/edition/student_wheel.py``). The writers replace a file in one rename, so a reader
(a teacher's browser, nbgrader, a resumed batch) sees the old file or the new
one, never half of one.
"""

import contextlib
import os
import tempfile

# Where ``grader`` is imported from: the course folder (the teacher's, or the
# student edition's), or site-packages where the wheel is installed. The
# grader's own processes start here, with it on PYTHONPATH.
PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Installed, the course has no folder of its own: the wheel's copy of the
# student edition's folders is package data. Absent in a course folder.
INSTALLED_COURSE = os.path.join(PROJECT, "grader", "course_files")
COURSE = INSTALLED_COURSE if os.path.isdir(INSTALLED_COURSE) else PROJECT
CHECKS = os.path.join(COURSE, "checks")
SOLUTIONS = os.path.join(COURSE, "solutions")
EXERCISES_DIR = os.path.join(COURSE, "exercises")  # the stubs: an untouched file is told by them
NOTEBOOKS_DIR = os.path.join(COURSE, "notebooks")  # the exercises as notebooks, for ``start``


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str):
    """A temporary file beside ``path`` for the block to write, renamed to
    ``path`` when the block ends. If the block fails, the temporary file is
    removed and ``path`` is as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    os.close(fd)
    try:
        yield tmp
        # mkstemp makes the file private (0600); what we write is as readable as any file the user writes.
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomically(path: str, text: str) -> None:
    with replacing(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
