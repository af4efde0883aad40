"""The student edition's ``pyproject.toml``: its grader as a wheel, for a
JupyterHub or a container image.

``release`` writes it into the student edition, not the course's root: the
wheel is built from what the release holds (the grader without
``teacher/``, the public checks and the reference answers recorded for
them, the stubs), so it can hold nothing the release does not, and the
release's leak guard has already searched every file of it. The course's
own folder has no ``pyproject.toml``, so nothing there (tox included) ever
builds it as a package.

In the wheel, ``checks/`` (``public/``, ``pytest.ini``, ``hidden_points.json``),
``exercises/`` and ``notebooks/`` become package data in ``grader/course_files/``, where
``grader/files.py`` looks when installed: site-packages is no course folder.
The stubs are there because the grader tells an untouched file by them, and
with the notebooks because ``attention-grader start DIR`` writes a student's
copy of both (``grader/student/start.py``). Neither ``experiments/`` nor
``write/`` goes in. The edition's README is the wheel's long description.

Built with hatchling: its ``force-include`` puts those folders into the
package as they lie, without moving anything in the student edition, and it
writes nothing into the folder it builds (setuptools leaves ``build/`` and
an ``.egg-info`` there). The pins are tox.ini's: ``[base] deps`` are the
wheel's requirements, ``[teacher] deps`` its ``teacher`` extra (nbgrader
and what the teacher's tools need, for an image where the teacher runs them
from the course's own folder: the wheel has no teacher's verbs).
"""

import configparser
import json
import os

from grader import __version__
from grader.teacher.edition import packaging

NAME = "attention-grader"  # the distribution, and the console script
# Where the wheel keeps the student edition's course folders (grader/files.py's INSTALLED_COURSE).
DATA = "grader/course_files"
FOLDERS = ("checks", "exercises", "notebooks")


def wheel_file(version: str = __version__) -> str:
    """The wheel's file name, as pip and hatchling write it."""
    return f"{NAME.replace('-', '_')}-{version}-py3-none-any.whl"


def pyproject(root: str, project: str) -> str:
    """The ``pyproject.toml`` of the student edition in ``root`` (its
    ``checks/`` and ``exercises/`` written), with the pins of ``project``'s tox.ini."""
    force = "".join(f"{_toml(rel)} = {_toml(DATA + '/' + rel)}\n" for rel in _shipped(root))
    return f"""\
# The grader of this student edition as a wheel, for a JupyterHub or a
# container image. Build it here (hatchling, which pip fetches):
#     python -m pip wheel --no-deps -w dist .
# then `pip install dist/{wheel_file()}` gives every kernel
# `from grader.notebook import check`, and the command `{NAME} grade FOLDER`.
# Written by `python -m grader release` (grader/teacher/edition/student_wheel.py).
# tox does not build it: each environment of tox.ini has skip_install.
[build-system]
requires = ["hatchling>=1.26"]
build-backend = "hatchling.build"

[project]
name = "{NAME}"
dynamic = ["version"]
description = "The grader of the self-attention exercises, with their public checks"
readme = "README.md"
requires-python = ">=3.11"
dependencies = {_toml_list(packaging.tox_base_deps(project))}

[project.optional-dependencies]
# What the teacher's tools need (their code is in the course's own folder, not here).
teacher = {_toml_list(tox_deps(project, "teacher"))}

[project.scripts]
{NAME} = "grader.cli:script"

[tool.hatch.version]
path = "grader/__init__.py"

[tool.hatch.build.targets.wheel]
packages = ["grader"]
exclude = ["__pycache__", "*.pyc", ".ipynb_checkpoints"]
# A .gitignore above this folder (the course's, say) is not this folder's.
ignore-vcs = true

# The course's files, one by one (nothing a grading left beside them), as package data.
[tool.hatch.build.targets.wheel.force-include]
{force}"""


def tox_deps(project: str, section: str) -> list[str]:
    """tox.ini's ``[section] deps``, one requirement each."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(project, "tox.ini"), encoding="utf-8")
    return [line.strip() for line in config.get(section, "deps").splitlines() if line.strip()]


def _shipped(root: str) -> list[str]:
    """The files of ``FOLDERS`` in ``root``, relative, with /, sorted."""
    out = []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".ipynb_checkpoints")]
            out += [os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/") for n in filenames]
    return sorted(out)


def _toml(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(_toml(i) for i in items) + "]"
