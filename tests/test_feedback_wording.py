"""The English of what students read agrees in number: "1 more check failed",
"1 of 4 entries differs", never "1 more checks" or "1 entries are NaN"."""
import torch

from grader.checking import CheckFailed, expect_close
from grader.engine import report
from grader.engine.grading import Grade
from grader.engine.plugin import CheckResult
from grader.text import count, t


def test_count_says_one_thing_and_many_things():
    assert count(1, "check") == "1 check"
    assert count(2, "check") == "2 checks"
    assert count(0, "entry", "entries") == "0 entries"
    assert count(1, "entry", "entries") == "1 entry"


def _failed(i: int, feedback: str) -> CheckResult:
    return CheckResult("ex0_weighted_sum", f"检查 {i} / check {i}", f"test_{i}", 0, 1, False, False, feedback)


def test_one_more_failed_check_is_one_check():
    shown = report.SHOWN_IN_FULL
    grade = Grade("s", results=[_failed(i, f"reason {i}") for i in range(shown + 1)])
    text = report.terminal(grade)
    assert "1 more check failed" in text and "1 more checks" not in text
    grade = Grade("s", results=[_failed(i, f"reason {i}") for i in range(shown + 2)])
    assert "2 more checks failed" in report.terminal(grade)


def _difference(got, want) -> str:
    try:
        expect_close(got, want, t("输出", "out"))
    except CheckFailed as e:
        return e.difference.en
    raise AssertionError("expect_close passed a wrong result")


def test_one_wrong_entry_is_one_entry():
    want = torch.zeros(2, 2)
    got = want.clone()
    got[1, 1] = 5.0
    text = _difference(got, want)
    assert "1 of 4 entries differs" in text and "1 of 2 rows holds a wrong entry" in text, text
    got[1, 0] = 5.0
    assert "2 of 4 entries differ;" in _difference(got, want)


def test_one_nan_is_one_entry():
    want = torch.zeros(2, 2)
    got = want.clone()
    got[1, 1] = float("nan")
    assert "1 entry is NaN" in _difference(got, want)
    got[0, 0] = float("nan")
    assert "2 entries are NaN" in _difference(got, want)
