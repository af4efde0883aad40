"""The experiments: one plain-torch script per exercise (experiments/), and
each exercise's page shows it and asks its questions.

A student runs an experiment before solving the exercise, from the course
folder or the student edition, with the command the page shows. So each
script must run on its own: started isolated (``python -I``: no PYTHONPATH,
not even its own folder on the path) from an empty working folder, it cannot
reach the exercises or the solutions, and it must still finish quickly and
print something. The docs build checks the same for the pages it builds
(docs/_ext/experiment.py); this test names every exercise, so a missing
script or page section is a failure here rather than a page nobody wrote.
"""

import ast
import subprocess
import sys
import time

import pytest
from docs_site import DOCS, ROOT, markdown_tokens
from experiment import ALLOWED_IMPORTS, command, imports, script_name

from grader.exercises import IDS

EXPERIMENTS = ROOT / "experiments"
TIME_LIMIT = 30  # seconds: a student waits for it, and the docs build runs every one


def script(exercise: str):
    path = EXPERIMENTS / script_name(exercise)
    assert path.is_file(), f"{exercise} has no experiment: {path.relative_to(ROOT)}"
    return path


@pytest.mark.parametrize("exercise", IDS)
def test_experiment_runs_alone_and_prints(exercise, tmp_path):
    path = script(exercise)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-I", str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=TIME_LIMIT)
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip(), f"{path.name} printed nothing"
    assert took < TIME_LIMIT
    assert not list(tmp_path.iterdir()), f"{path.name} left files in the working folder"


@pytest.mark.parametrize("exercise", IDS)
def test_experiment_imports_torch_and_small_helpers_only(exercise):
    foreign = imports(script(exercise).read_text(encoding="utf-8")) - ALLOWED_IMPORTS
    assert not foreign, f"{exercise}'s experiment imports {sorted(foreign)}"


@pytest.mark.parametrize("exercise", IDS)
def test_experiment_docstring_gives_its_command(exercise):
    doc = ast.get_docstring(ast.parse(script(exercise).read_text(encoding="utf-8"))) or ""
    assert command(exercise) in doc, f"the docstring of {script_name(exercise)} should say how to run it: {command(exercise)}"


def page_directives(exercise: str) -> list[tuple[str, str]]:
    """(directive, argument) of every directive on the exercise's page, in order, nested ones too."""
    found = []

    def walk(tokens):
        for tok in tokens:
            info = tok.info.strip() if tok.type in ("fence", "colon_fence") else ""
            if info.startswith("{"):
                name, _, argument = info[1:].partition("}")
                found.append((name, argument.strip()))
                if tok.type == "colon_fence":
                    walk(markdown_tokens(tok.content))

    walk(markdown_tokens((DOCS / "path" / f"{exercise}.md").read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("exercise", IDS)
def test_page_shows_its_experiment_and_asks_questions(exercise):
    directives = page_directives(exercise)
    assert ("experiment", exercise) in directives, f"docs/path/{exercise}.md has no ```{{experiment}} {exercise}```"
    answers = sum(1 for name, _ in directives if name == "answer")
    assert answers >= 2, f"docs/path/{exercise}.md has {answers} {{answer}} blocks: at least two questions with answers"


def test_page_directives_sees_nested_answers():
    assert ("answer", "") in page_directives(IDS[0])
