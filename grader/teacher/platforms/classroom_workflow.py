"""GitHub Classroom's autograding workflow for the student edition
(``release --github-classroom``): ``.github/workflows/classroom.yml``.

On each push to a student's repository it sets up Python 3.11 (pip's
downloads cached), installs the CPU build of the pinned torch and the rest
of tox.ini's ``[base] deps``, grades ``exercises/`` with the public checks
(``python -m grader.github_classroom``, which prints the step output
``result``) and hands that to ``classroom-resources/autograding-grading-reporter``,
which reads it from ``<STEP-ID>_RESULTS`` and reports the points to GitHub
Classroom. The hidden checks are not in the release: their points stay with
the teacher's ``batch``.

The shape follows the workflow GitHub Classroom writes for its own graders
(the reporter's README and .github/workflows/integration.yml: a step with
an ``id``, the reporter's ``env`` naming ``<ID>_RESULTS`` and its
``runners`` input listing the ids), with the triggers, permissions and the
``github-classroom[bot]`` guard of the ``classroom.yml`` the classroom adds
to a starter repository.
"""

import os

from grader.files import PROJECT

WORKFLOW = os.path.join(".github", "workflows", "classroom.yml")
STEP_ID = "grade"  # the reporter's runner id: letters and digits only (its src/main.js checks)
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
PYTHON = "3.11"
TIMEOUT_MINUTES = 30  # the first run downloads torch; a cached one takes a few minutes
GRADE_COMMAND = 'python -m grader.github_classroom exercises >> "$GITHUB_OUTPUT"'

TEMPLATE = """\
# GitHub Classroom autograding for the self-attention exercises.
# Written by `python -m grader release --github-classroom`: each push grades
# exercises/ with the public checks, as `tox -e grade` does, for {public}
# points (one test per check, with the check's points); the hidden checks'
# points come from the teacher's own grading. The grading step's log shows
# the full report, in Chinese and English.
name: Autograding Tests
"on":
  - push
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: {timeout}
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Set up Python {python}
        uses: actions/setup-python@v5
        with:
          python-version: "{python}"
          cache: pip
          # pip's cache is keyed on this file, which holds the pins (the
          # release has no requirements.txt for setup-python to find).
          cache-dependency-path: {workflow}
      - name: Install the CPU build of torch
        # PyPI's torch for Linux is a CUDA build of several GB; grading needs no GPU.
        run: |
          python -m pip install {torch} --index-url {index}
          python -m pip install {others}
      - name: Grade the public checks
        id: {step}
        run: {command}
      - name: Autograding Reporter
        uses: {reporter}
        env:
          {env}: "${{{{ steps.{step}.outputs.result }}}}"
        with:
          runners: {step}
"""


def workflow(project: str = PROJECT) -> str:
    """The text of ``.github/workflows/classroom.yml``, with tox.ini's pins."""
    from grader.exercises import EXERCISES
    from grader.teacher.edition.packaging import tox_base_deps
    from grader.teacher.platforms.gradescope import TORCH_CPU_INDEX

    deps = tox_base_deps(project)
    torch = next(d for d in deps if d.startswith("torch=="))
    others = " ".join(f'"{d}"' for d in deps if d != torch)
    return TEMPLATE.format(
        public=sum(e.public for e in EXERCISES),
        timeout=TIMEOUT_MINUTES,
        python=PYTHON,
        workflow=WORKFLOW.replace(os.sep, "/"),
        torch=torch,
        index=TORCH_CPU_INDEX,
        others=others,
        step=STEP_ID,
        command=_yaml_plain(GRADE_COMMAND),
        reporter=REPORTER,
        env=f"{STEP_ID.upper()}_RESULTS",
    )


def _yaml_plain(command: str) -> str:
    """``command`` as a YAML scalar: single-quoted (no escapes but '' inside)."""
    return "'" + command.replace("'", "''") + "'"


def write(root: str, project: str = PROJECT) -> None:
    """Add the workflow to the release being built in ``root``."""
    from grader.teacher.edition import packaging

    path = os.path.join(root, WORKFLOW)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    packaging.write_text(path, workflow(project))
