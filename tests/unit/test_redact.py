"""The redactor: no line of a hidden check or of a solution region reaches a
report, whatever text surrounds it; the student's own lines may."""

from pathlib import Path

import pytest

from grader.engine.redact import MARK, MIN_LENGTH, Redactor

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def redactor():
    return Redactor(str(ROOT / "checks"), str(ROOT / "solutions"))


def test_there_are_secrets_of_both_kinds(redactor):
    hidden = (ROOT / "checks" / "hidden" / "test_ex4_masking.py").read_text(encoding="utf-8")
    assert any(s in hidden for s in redactor.secrets)
    assert any(s in (ROOT / "solutions" / "ex5_head.py").read_text(encoding="utf-8") for s in redactor.secrets)


def test_every_secret_is_found_inside_any_line(redactor):
    for secret in redactor.secrets:
        text = f"before\nTraceback: {secret} (printed)\n{secret}\nafter\n"
        assert redactor.clean(text) == f"before\n{MARK}\n{MARK}\nafter\n", secret


def test_the_students_own_lines_stay(redactor):
    secret, other = sorted(redactor.secrets)[:2]
    assert redactor.clean(f"x {secret}\n", frozenset([secret])) == f"x {secret}\n"
    # A line with one of the student's own and one secret they do not have is still hidden.
    assert redactor.clean(f"{secret} {other}\n", frozenset([secret])) == f"{MARK}\n"


def test_ordinary_text_is_untouched(redactor):
    text = "import torch\n" + "x" * (MIN_LENGTH + 50) + "\n得到 / got: tensor([0.8450, 0.6700])"
    assert redactor.clean(text) == text
