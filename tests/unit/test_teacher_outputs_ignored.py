"""What the teachers' commands write into the course folder, run as the pages
write them, is ignored by git: grades and code of students, built editions
and packages. Run in the teacher's repository, ``release --out attention``
and ``prairielearn --out prairielearn`` left untracked files there, one
``git add .`` away from a commit."""

import re
import shlex
import subprocess

import pytest
from conftest import ROOT
from docs_site import DOCS

PAGES = sorted((DOCS / "teachers").glob("*.md")) + [DOCS.parent / "README.md"]
WRITES = ("--out", "--to", "-w")  # the options that name what a command writes
TEACHER = re.compile(r"^(tox -e teacher --|tox exec -e teacher --|python -m grader) ")


def written() -> list[str]:
    """Every path a teacher's command of the pages writes, relative to the course folder."""
    found = set()
    for page in PAGES:
        for line in page.read_text(encoding="utf-8").splitlines():
            if not TEACHER.match(line):
                continue
            argv = shlex.split(line, comments=True)
            for i, word in enumerate(argv[:-1]):
                path = argv[i + 1]
                if word in WRITES and not re.search(r"[A-Z]{3,}", path):  # OUT, IMPORT.csv: a synopsis's placeholders
                    found.add(path.rstrip("/"))
                    if "release" in argv:
                        found.add(path.rstrip("/") + ".zip")  # release writes the folder and its zip
    return sorted(found)


def test_the_pages_commands_write_something():
    paths = written()
    assert {"attention", "attention.zip", "prairielearn", "out", "dist", "canvas-import.csv"} <= set(paths), paths


@pytest.mark.parametrize("path", written())
def test_what_a_command_writes_is_ignored(path):
    # As a file, or as a folder (a pattern ending in / matches folders only, and nothing here exists to tell).
    ignored = [subprocess.run(["git", "check-ignore", "--no-index", "-q", p], cwd=ROOT).returncode == 0 for p in (path, path + "/")]
    assert any(ignored), f"{path} is not in .gitignore: a teacher's `git add .` would commit it"


def test_a_path_not_listed_is_not_ignored():
    """The check above can fail: a course file is not ignored."""
    assert subprocess.run(["git", "check-ignore", "--no-index", "-q", "exercises/ex0_weighted_sum.py"], cwd=ROOT).returncode == 1
