"""What the checks' source must respect, read without running it.

A diagnosis given as a function (``diagnoses=lambda: ...``) runs only when an
answer is wrong. The student release replays the reference answers recorded
while the solutions were graded, when no diagnosis ran: a diagnosis that asks
``ref`` (or ``sub``) something would find no recorded answer in a student's
run and break the check. So such a function computes by hand only.

A ``caused_by(lambda: ...)`` finder (grader/authoring/checking.py) also runs only on a
wrong answer; it asks the submission about another of its functions, which
every edition can answer, but never ``ref``, for the same reason.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK_FILES = sorted((ROOT / "checks").glob("*/test_*.py"))


def endpoint_uses_in_lazy_diagnoses(source: str) -> list[int]:
    """Lines where a ``diagnoses=lambda`` names the ``sub`` or ``ref`` fixture."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == "diagnoses" and isinstance(node.value, ast.Lambda):
            lines += [n.lineno for n in ast.walk(node.value) if isinstance(n, ast.Name) and n.id in ("sub", "ref")]
    return lines


def reference_uses_in_cause_finders(source: str) -> list[int]:
    """Lines where the ``lambda`` given to ``caused_by`` names the ``ref`` fixture."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "caused_by":
            for arg in node.args:
                if isinstance(arg, ast.Lambda):
                    lines += [n.lineno for n in ast.walk(arg) if isinstance(n, ast.Name) and n.id == "ref"]
    return lines


def test_the_rule_is_seen():
    wrong = "expect_close(a, b, what, diagnoses=lambda: [(ref.f(x), hint)])\n"
    right = "want = ref.f(x)\nexpect_close(a, b, what, diagnoses=lambda: [(want, hint)])\n"
    assert endpoint_uses_in_lazy_diagnoses(wrong) == [1]
    assert endpoint_uses_in_lazy_diagnoses(right) == []
    wrong = "with caused_by(lambda: behind(sub, ref.f(x))):\n    expect_close(a, b, what)\n"
    right = "with caused_by(lambda: behind(sub, [x])):\n    expect_close(a, b, what)\n"
    assert reference_uses_in_cause_finders(wrong) == [1]
    assert reference_uses_in_cause_finders(right) == []


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lazy_diagnoses_never_ask_the_endpoints(path):
    assert len(CHECK_FILES) >= 16
    lines = endpoint_uses_in_lazy_diagnoses(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.name}: a lazy diagnosis asks sub/ref on lines {lines}: ask before expect_close"


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cause_finders_never_ask_the_reference(path):
    lines = reference_uses_in_cause_finders(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.name}: a caused_by finder asks ref on lines {lines}: compute its right answer by hand (grader/authoring/upstream.py)"
