"""A folder of GitHub Classroom's student repositories, cloned, read as a class.

``gh classroom clone student-repos -a <assignment id>`` (the gh extension
github/gh-classroom, cmd/gh-classroom/clone/student-repos/student-repos.go)
makes ``<directory>/<assignment slug>-submissions/`` and clones each accepted
assignment's repository into it, named as the repository is
(``acceptAssignment.Repository.Name``), with ``gh repo clone``
(clone/utils/clone-repository.go): a folder per student (per team, in a
group assignment), each a git repository. ``batch`` and ``similar`` read
that folder as a class (``downloads.read``): the student id is the
repository's name, and what is graded is its ``exercises/`` folder, as
the repository's own workflow (``classroom_workflow``) and ``tox -e grade``
grade it; a repository without one is searched as any student's folder is
(``submissions.from_folder``).

The submission time, for a late policy, is the repository's last commit's
committer date (``git log -1 --format=%cI``). The student's machine writes
that date (``GIT_COMMITTER_DATE``, a wrong clock, a rebase): it is their
word, not a fact. ``lateness`` therefore prefers the policy's ``times``
file, which the teacher makes from GitHub's own record of the pushes, and
says whose times were taken from commits. Nothing in a repository is run:
git only reads its history, with the repository's fsmonitor and hooks off.
"""

import os
import stat
import subprocess

from grader.teacher.intake import submissions
from grader.teacher.late.lateness import GIT_COMMIT

KIND = "GitHub Classroom"
GRADED = "exercises"  # the folder of the student edition that is graded
GIT_TIMEOUT = 30  # seconds for one repository's git log


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def is_clone(path: str) -> bool:
    """A folder with a ``.git`` folder of its own: what ``gh repo clone`` makes."""
    return _is_real_dir(path) and _is_real_dir(os.path.join(path, ".git"))


def looks_like(root: str, names: list[str]) -> bool:
    """Most names of ``root`` are cloned repositories (a stray file or two
    beside them do not change what the folder is)."""
    clones = [n for n in names if is_clone(os.path.join(root, n))]
    return len(clones) * 2 > len(names)


def last_commit_time(repo: str) -> str:
    """The committer date of the repository's last commit, ISO 8601 with its
    offset; "" when git cannot tell (no git, no commit, not a repository)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    argv = [
        "git", "-C", repo,
        "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", f"safe.directory={repo}",
        "--no-pager", "log", "-1", "--format=%cI", "HEAD",
    ]  # fmt: skip
    try:
        proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def read_repo(path: str, student_id: str, name: str, assignment: str | None) -> submissions.Entry:
    """One student's cloned repository (``submissions.discover``'s ``read_folder``)."""
    graded = os.path.join(path, GRADED)
    if is_clone(path) and _is_real_dir(graded):
        # The rest of the repository is the student edition's own files: nothing to note.
        entry = submissions.from_folder(graded, student_id, f"{name}/{GRADED}", assignment)
    else:
        entry = submissions.from_folder(path, student_id, name, assignment)
    if is_clone(path):
        when = last_commit_time(path)
        if when:
            entry.submitted_at, entry.time_source = when, GIT_COMMIT
    return entry


def discover(root: str, work_dir: str, assignment: str | None, exclude: tuple = ()):
    """``submissions.discover`` with each folder read as a cloned repository."""
    return submissions.discover(root, work_dir, assignment, exclude, read_folder=read_repo)
