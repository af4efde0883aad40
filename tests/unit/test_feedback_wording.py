"""The English of what students read agrees in number: "1 more check failed",
"1 of 4 entries differs", never "1 more checks" or "1 entries are NaN"."""

import torch

from grader.authoring.checking import CheckFailed, expect_close
from grader.engine.grading import Grade
from grader.engine.plugin import CheckResult
from grader.student import report
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


# - the report of unfinished work, and its closing lines -


def _stub(ex: str, i: int, where: str) -> CheckResult:
    return CheckResult(ex, f"检查 {i} / check {i}", f"test_{i}", 0, 2, False, False, f"尚未完成\nnot implemented yet\n  {where}: raise NotImplementedError", not_implemented=True)


def _passed(ex: str, i: int) -> CheckResult:
    return CheckResult(ex, f"检查 {i} / check {i}", f"test_{i}", 2, 2, False, True)


def test_an_exercise_not_started_is_one_line_naming_its_first_stub():
    grade = Grade(
        "s",
        results=[
            _stub("ex1_averaging", 1, "s/ex1_averaging.py, line 53"),
            _stub("ex1_averaging", 2, "s/ex1_averaging.py, line 28"),
            _stub("ex1_averaging", 3, "s/ex1_averaging.py, line 53"),
            _stub("ex6_block", 1, "a/long/folder/ex6_block.ipynb, cell 4, line 9"),
            _stub("ex6_block", 2, "a/long/folder/ex6_block.ipynb, cell 3, line 12"),
        ],
    )
    lines = report.terminal(grade).splitlines()
    assert "· ex1_averaging.py, line 28: 尚未完成 / not implemented yet" in lines
    assert "· ex6_block.ipynb, cell 3, line 12: 尚未完成 / not implemented yet" in lines
    assert not [line for line in lines if line.startswith(("✗", "━━")) or "check 1" in line]
    assert len([line for line in lines[:-2] if "ex1_averaging" in line]) == 2  # its row and its line


def test_a_function_not_started_in_a_started_exercise_is_counted_not_listed():
    rs = [_passed("ex4_masking", 0)] + [_stub("ex4_masking", i, "s/ex4_masking.py, line 63") for i in range(1, 6)]
    text = report.terminal(Grade("s", results=rs))
    assert "✗ 5 项检查 / 5 checks  (0/10)" in text and "check 3" not in text
    assert text.count("not implemented yet") == 1


def _closing(results, **grade) -> tuple[str, str]:
    lines = report.terminal(Grade("s", results=results, **grade)).splitlines()
    assert all(report.width(line) <= report.WIDTH for line in lines[-2:]), lines[-2:]
    return lines[-2], lines[-1]


def test_the_last_lines_say_the_total_and_what_to_do_next():
    stubs = [_stub(ex, 1, f"s/{ex}.py, line 9") for ex in ("ex0_weighted_sum", "ex1_averaging", "ex2_scores")]
    zh, en = _closing(stubs)
    assert zh.startswith("总分 0 / 6：3 道都还没开始。") and "ex0_weighted_sum" in zh
    assert en == "Total 0 / 6: nothing started yet. Next: ex0_weighted_sum, at its TODO."
    # ex0 done, ex1 wrong, ex2 not started: the next step is the first one not done.
    wrong = CheckResult("ex1_averaging", "c / c", "test_c", 0, 2, False, False, "测试 / tested: x")
    zh, en = _closing([_passed("ex0_weighted_sum", 1), wrong, stubs[2]])
    assert en.startswith("Total 2 / 6: 1 of 3 done, 1 not started. Next: fix ex1_averaging"), en
    assert "完成 1 / 3 道" in zh and "ex1_averaging" in zh
    zh, en = _closing([stubs[2]])  # --only ex2_scores
    assert en == "Total 0 / 2: not started yet. Next: write ex2_scores where it says TODO."


def test_the_last_lines_when_all_pass_or_the_grader_failed():
    done = [_passed("ex0_weighted_sum", 1), _passed("ex1_averaging", 1)]
    assert _closing(done)[1] == "Total 4 / 4: every check passed."
    zh, en = _closing(done, teacher_points={"ex0_weighted_sum": 3, "ex1_averaging": 2})
    assert en == "Total 4 / 4: all public checks pass; your teacher grades the hidden (+5)." and "由老师评分" in zh
    zh, en = _closing(done, errors=["boom"], teacher_points={"ex0_weighted_sum": 50})
    assert "grader failed" in en and "评分程序出错" in zh
