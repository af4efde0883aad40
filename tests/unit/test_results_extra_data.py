"""What each check found, as data in results.json (``report.check_data``):
every test's ``extra_data`` holds its kind (public or hidden), whether it
met the untouched stub (``started``) and the mistake it named
(``diagnosis``), decided in the grading process from the check's own
outcome; the top-level ``extra_data`` sums them up (``not_started``,
``diagnoses``). The class report and the teaching page's mistake tables
read them from there (tests/teacher/test_class_report.py, tests/docs/test_mistake_table.py).
"""

import ast
from pathlib import Path

import pytest
from conftest import EXERCISES, ROOT, make_submission
from results_schema import valid

from grader.engine.grading import Grade
from grader.engine.plugin import CheckResult
from grader.student import report
from grader.text import DIAGNOSIS_LABEL, t

EX = "ex3_scaling"
WRONG = Path(ROOT, "tests", "catalogue", "wrong", f"{EX}__divides_by_head_size.py")
# The public checks' diagnosis of that mistake (checks/public/test_ex3_scaling.py).
SQRT = t("你除以了 head_size 本身；应除以它的平方根。", "You divided by head_size itself; divide by its square root.")


def check_names(kind: str) -> list[str]:
    """The check functions of ex3's public or hidden checks file, in order."""
    tree = ast.parse(Path(ROOT, "checks", kind, f"test_{EX}.py").read_text(encoding="utf-8"))
    return [f.name for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]


def graded(grader, folder, source: str) -> dict:
    grade = grader.grade(make_submission(folder, {EX: source}), only=EX)
    assert not grade.errors, grade.errors
    return valid(report.results_json(grade))


def test_a_known_mistake_is_named_in_the_checks_extra_data(grader, tmp_path):
    results = graded(grader, tmp_path / "sub", WRONG.read_text(encoding="utf-8"))
    tests = results["tests"]
    assert tests and all(x["tags"][0] == EX for x in tests)
    diagnosed = {x["tags"][2]: x["extra_data"]["diagnosis"] for x in tests if x["extra_data"]["diagnosis"]}
    # Both public checks that try dividing by head_size itself name it; the others only say what differs.
    assert diagnosed == {"test_example": {"zh": SQRT.zh, "en": SQRT.en}, "test_uses_head_size_not_shape": {"zh": SQRT.zh, "en": SQRT.en}}
    for x in tests:
        assert x["extra_data"]["started"] is True
        # The feedback says the same: a "诊断 / found" line where, and only where, the data names a mistake.
        shown = f"{DIAGNOSIS_LABEL}{SQRT.zh}" in x["output"]
        assert shown == (x["tags"][2] in diagnosed) == (DIAGNOSIS_LABEL in x["output"]), x
    assert results["extra_data"]["diagnoses"] == [{"exercise": EX, "zh": SQRT.zh, "en": SQRT.en, "checks": ["test_example", "test_uses_head_size_not_shape"]}]
    assert "not_started" not in results["extra_data"]


def test_the_stub_is_not_started(grader, tmp_path):
    results = graded(grader, tmp_path / "sub", Path(EXERCISES, f"{EX}.py").read_text(encoding="utf-8"))
    tests = results["tests"]
    assert tests and all(x["status"] == "failed" for x in tests)
    assert all(x["extra_data"]["started"] is False and x["extra_data"]["diagnosis"] is None for x in tests)
    assert results["extra_data"]["not_started"] == [EX]
    assert "diagnoses" not in results["extra_data"]


def test_a_started_exercise_is_started_and_hidden_checks_are_marked_hidden(grader, tmp_path):
    results = graded(grader, tmp_path / "sub", Path(ROOT, "solutions", f"{EX}.py").read_text(encoding="utf-8"))
    tests = results["tests"]
    kinds = {x["tags"][2] + ("[hidden]" if x["tags"][1] == "hidden" else ""): x["extra_data"]["kind"] for x in tests}
    assert kinds == {**{n: "public" for n in check_names("public")}, **{n + "[hidden]": "hidden" for n in check_names("hidden")}}
    assert "hidden" in kinds.values()
    for x in tests:
        assert (x["extra_data"]["kind"] == "hidden") == (x["visibility"] == "after_published")
        assert x["extra_data"] == {"kind": x["extra_data"]["kind"], "started": True, "diagnosis": None}
    assert set(results["extra_data"]) & {"not_started", "diagnoses"} == set()


def test_the_data_comes_from_the_check_result_never_from_its_feedback():
    """results.json copies what the plugin recorded: feedback that reads like
    a diagnosis or like the stub (it quotes what the submission raised)
    changes nothing, and a recorded diagnosis is written as it is."""
    forged = f"你的代码抛出了 ValueError\nyour code raised ValueError\n  ValueError: x\n{DIAGNOSIS_LABEL}伪造\n尚未完成\nnot implemented yet"
    recorded = t("同一句", "同一句")
    grade = Grade(
        "mine",
        results=[
            CheckResult(EX, "a / a", "test_a", 0.0, 1.0, False, False, forged),
            CheckResult(EX, "b / b", "test_b", 0.0, 1.0, True, False, "", diagnosis=recorded),
            CheckResult("ex4_masking", "c / c", "test_c", 0.0, 1.0, False, False, "尚未完成\nnot implemented yet", not_implemented=True),
        ],
    )
    results = valid(report.results_json(grade))
    assert [x["extra_data"] for x in results["tests"]] == [
        {"kind": "public", "started": True, "diagnosis": None},
        {"kind": "hidden", "started": True, "diagnosis": {"zh": "同一句", "en": "同一句"}},
        {"kind": "public", "started": False, "diagnosis": None},
    ]
    assert results["extra_data"]["not_started"] == ["ex4_masking"]
    assert results["extra_data"]["diagnoses"] == [{"exercise": EX, "zh": "同一句", "en": "同一句", "checks": ["test_b"]}]


@pytest.mark.parametrize("path", ["docs/teachers/grading.md", "docs/teachers/gradescope.md"])
def test_the_fields_are_described_for_teachers(path):
    text = Path(ROOT, path).read_text(encoding="utf-8")
    for field in ("extra_data", "kind", "started", "diagnosis", "not_started", "diagnoses"):
        assert f"`{field}`" in text, (path, field)
