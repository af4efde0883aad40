"""The class report (``grader.teacher.report.class_data``, ``grader.teacher.report.class_report``,
``python -m grader report``).

Most tests build a batch's OUT by hand: a grades.csv and a results.json per
student, made by the grader's own ``report.results_json`` from check results
as the plugin records them (their feedback written by the grader's own
formatters), so the report reads exactly what grading writes. One module fixture grades a small
real class (three students of ``examples/submissions`` and one with nothing
to grade); the browser tests open its report in Debian's Chromium.
"""

import csv
import dataclasses
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import types
import urllib.parse
from pathlib import Path

import pytest
from conftest import ROOT, TEST_INPUTS_SEED, make_submission, python_m_grader, run_cli

from grader.authoring.checking import Fault
from grader.engine.grading import Grade
from grader.engine.plugin import CheckResult, format_failure, format_fault
from grader.exercises import IDS
from grader.student import report
from grader.teacher.batch.grades_csv import text_cell
from grader.teacher.intake.submissions import safe_name
from grader.teacher.report import class_data, class_report
from grader.text import NOT_IMPLEMENTED, Text, t

EXAMPLES = os.path.join(ROOT, "examples", "submissions")

# ------------------------------------------------------------ a fake OUT

# Every exercise has the same two checks in the fake class: 5 points each, 5 per exercise in all.
CHECKS = (("check_a", "公开的检查 / a public check", 2.0, False), ("check_b", "隐藏的检查 / a hidden check", 3.0, True))
FULL = 5.0 * len(IDS)
PASS = None


@dataclasses.dataclass(frozen=True)
class Failed:
    """A failed check, as the plugin records it: the feedback a student
    reads, and what the check found (``CheckResult``'s other fields)."""

    feedback: str
    diagnosis: Text | None = None
    not_implemented: bool = False


STUB = Failed(format_fault(Fault(NOT_IMPLEMENTED, "  ex.py, line 3: raise NotImplementedError", not_implemented=True)), not_implemented=True)
TRIL = t("你的矩阵是上三角：要用 torch.tril。", "Your matrix is upper-triangular: use torch.tril.")
SQRT = t("你除以了 head_size 本身；应除以它的平方根。", "You divided by head_size itself; divide by its square root.")
DIED = "评分进程意外退出 / the grading process died；下次运行时重评 / regraded on the next run"
GRADER_ERROR = "评分程序出错，下次运行时重评 / grader error: regraded on the next run"


def wrong(diagnosis=None) -> Failed:
    """A wrong answer, as the plugin records it: its feedback (with the
    diagnosis' "诊断 / found" line when there is one) and its diagnosis."""
    feedback = format_failure(t("测试", "the test"), "[1.0]", "[2.0]", diagnosis, diagnosed=diagnosis is not None, difference=t("不同", "differs"))
    return Failed(feedback, diagnosis)


def with_batch_data(results: dict, sid: str, finished: bool = True) -> dict:
    """``results`` with what the batch adds to extra_data (``BatchOutput.write_student``)."""
    extra = {"student_id": sid, "assignment": "attention", "submission_sha256": "ab" * 32 if finished else None, "note": ""}
    return {**results, "extra_data": {**results["extra_data"], **extra}}


def results_of(sid: str, spec: dict, finished: bool = True) -> dict:
    """results.json for a student: ``spec`` maps an exercise to what its two
    checks recorded (PASS, or a ``Failed``); missing ones pass."""
    checks = []
    for ex in IDS:
        for (check_id, title, points, hidden), failed in zip(CHECKS, spec.get(ex, (PASS, PASS))):
            r = CheckResult(ex, title, check_id, points if failed is PASS else 0.0, points, hidden, failed is PASS)
            if failed is not PASS:
                r.feedback, r.diagnosis, r.not_implemented = failed.feedback, failed.diagnosis, failed.not_implemented
            checks.append(r)
    return with_batch_data(report.results_json(Grade(sid, results=checks)), sid, finished)


def make_out(folder, students: dict, notes: dict | None = None, unfinished=()) -> str:
    """An OUT as the batch leaves it. ``students`` maps an id to a spec for
    ``results_of`` or a results.json of its own (a dict with "tests"), or to
    None: a row of zeros and no folder (a student the batch could not grade)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rows = [["student_id", *IDS, "total", "note"]]
    for sid in sorted(students):
        spec, points = students[sid], {ex: 0.0 for ex in IDS}
        if spec is not None:
            results = spec if "tests" in spec else results_of(sid, spec, finished=sid not in unfinished)
            for test in results["tests"]:
                points[test["tags"][0]] += test["score"]
            (out / safe_name(sid)).mkdir()
            (out / safe_name(sid) / "results.json").write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
            (out / safe_name(sid) / "feedback.md").write_text("# 评分反馈 / Feedback\n", encoding="utf-8")
        note = (notes or {}).get(sid, "")
        rows.append([text_cell(sid), *(f"{points[ex]:g}" for ex in IDS), f"{sum(points.values()):g}", text_cell(note)])
    with open(out / "grades.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\r\n").writerows(rows)
    return str(out)


def stubs(*exercises) -> dict:
    return {ex: (STUB, STUB) for ex in exercises}


SMALL_CLASS = {
    "anna": {},  # full marks
    "ben": stubs(*IDS[4:]),  # 20: ex0-ex3 done, the rest not started
    "cara": {"ex1_averaging": (wrong(TRIL), wrong(TRIL)), "ex3_scaling": (PASS, wrong())},  # FULL - 5 - 3; TRIL twice: one student
    "dan": {"ex1_averaging": (wrong(TRIL), PASS), "ex5_head": (wrong(SQRT), PASS)},  # FULL - 2 - 2
    "eve": stubs(*IDS),  # 0: started nothing
    "finn": None,  # the grading process died
    "gus": {"ex0_weighted_sum": (wrong(), PASS)},  # a grader error: results.json without the hash
}
SMALL_NOTES = {"finn": DIED, "gus": GRADER_ERROR}
SMALL_TOTALS = [FULL, 20, FULL - 8, FULL - 4, 0]  # the graded students, anna to eve; finn and gus are not graded


@pytest.fixture
def small_class(tmp_path) -> str:
    return make_out(tmp_path / "out", SMALL_CLASS, SMALL_NOTES, unfinished={"gus"})


def _html(out) -> str:
    return Path(out, "report.html").read_text(encoding="utf-8")


def _md(out) -> str:
    return Path(out, "report.md").read_text(encoding="utf-8")


# ----------------------------------------------------------------- numbers


def test_who_is_graded_not_graded_and_not_started(small_class):
    data = class_data.read(small_class)
    assert [s.id for s in data.students] == ["anna", "ben", "cara", "dan", "eve", "finn", "gus"]
    assert [s.id for s in data.graded] == ["anna", "ben", "cara", "dan", "eve"]
    by_id = {s.id: s for s in data.students}
    assert by_id["finn"].why_not_graded == DIED and by_id["gus"].why_not_graded == GRADER_ERROR
    assert by_id["ben"].not_started == list(IDS[4:]) and not by_id["ben"].started_nothing
    assert by_id["eve"].not_started == list(IDS) and by_id["eve"].started_nothing
    assert by_id["cara"].not_started == [] and by_id["anna"].total == FULL and by_id["cara"].total == FULL - 8
    assert data.max_total == FULL and data.maxima["ex4_masking"] == 5


def test_totals_mean_median_and_counts(small_class):
    html_path, md_path = class_report.write(small_class)
    assert (html_path, md_path) == (os.path.join(small_class, "report.html"), os.path.join(small_class, "report.md"))
    page = _html(small_class)
    mean = statistics.fmean(SMALL_TOTALS)
    expected = {
        "students": "7",
        "graded": "5",
        "not-graded": "2",
        "not-started": "1",
        "mean": f"{mean:.1f}",
        "median": f"{FULL - 8:g}",
        "full-marks": f"{FULL:g}",
    }
    for key, value in expected.items():
        assert f'<dd id="stat-{key}">{value}</dd>' in page, key
    assert f"| 平均分 / mean | {mean:.1f} |" in _md(small_class)


def test_checks_ranked_by_pass_rate(small_class):
    """A pass rate counts the students who started the exercise; those who
    did not (eve everywhere, ben from ex4 on) are a count of their own."""
    data = class_data.read(small_class)
    rate = {(c.exercise, c.check_id): (c.passed, c.tried, c.not_started) for c in data.checks}
    assert rate[("ex1_averaging", "check_a")] == (2, 4, 1)  # cara and dan failed it; eve's stub is not a failure
    assert rate[("ex1_averaging", "check_b")] == (3, 4, 1)
    assert rate[("ex0_weighted_sum", "check_a")] == (4, 4, 1)  # gus is not graded: not counted
    assert rate[("ex5_head", "check_a")] == (2, 3, 2)  # dan failed it; ben and eve never started ex5
    assert rate[("ex7_gpt", "check_b")] == (3, 3, 2)
    class_report.write(small_class)
    table = _html(small_class).split('id="checks-table"')[1].split("</table>")[0]
    rows = re.findall(r"<tr>" + r"<td[^>]*>([^<]*)</td>" * 6, table)
    # ex1's public check first (2 of the 4 who started), then ex5's (2 of 3), then the 75 % ones in exercise order.
    assert [r[:3] for r in rows[:4]] == [
        ("50% (2/4)", "1", "ex1_averaging"),
        ("67% (2/3)", "2", "ex5_head"),
        ("75% (3/4)", "1", "ex1_averaging"),
        ("75% (3/4)", "1", "ex3_scaling"),
    ]
    assert rows[0][3:] == ("公开的检查 / a public check", "2", "公开 / public")
    # The checks every starter passed are put away below, in a <details> the teacher opens.
    assert not [r for r in rows if r[0].startswith("100%")]
    page = _html(small_class)
    folded = page.split('id="checks-passed-table"')[1].split("</table>")[0]
    passed = re.findall(r"<tr>" + r"<td[^>]*>([^<]*)</td>" * 6, folded)
    assert passed and all(r[0].startswith("100%") for r in passed)
    assert ("100% (3/3)", "2", "ex7_gpt") in [r[:3] for r in passed]
    assert f"<details><summary>另有 {len(passed)} 项检查" in page
    assert len(rows) + len(passed) == 2 * len(IDS)  # every check, in one table or the other
    assert "| 50% (2/4) | 1 | ex1_averaging |" in _md(small_class)


def test_an_exercise_without_a_file_is_not_started_not_failed(tmp_path):
    """Checks that failed on a missing file (started, as the grading sees
    it) count as not started when the batch says the file is missing; a
    check that only non-starters met reads "—" and goes last."""
    missing = results_of("hal", {ex: (wrong(), wrong()) for ex in IDS[5:]})
    missing["extra_data"]["missing"] = list(IDS[5:])
    also = results_of("ivy", {IDS[7]: (wrong(), wrong())})
    also["extra_data"]["missing"] = [IDS[7], "not_an_exercise"]
    out = make_out(tmp_path / "out", {"anna": {}, "hal": missing, "ivy": also, "jo": {IDS[6]: (wrong(), PASS)}})
    data = class_data.read(out)
    by_id = {s.id: s for s in data.students}
    assert by_id["hal"].not_started == list(IDS[5:]) and by_id["ivy"].not_started == [IDS[7]]
    rate = {(c.exercise, c.check_id): (c.passed, c.tried, c.not_started) for c in data.checks}
    assert rate[(IDS[7], "check_a")] == (2, 2, 2) and rate[(IDS[6], "check_a")] == (2, 3, 1)
    class_report.write(out)
    md = _md(out)
    assert f"| 67% (2/3) | 1 | {IDS[6]} |" in md
    exercises = md.split("## 各练习 / Per exercise")[1].split("\n## ")[0]
    assert re.search(rf"^\| {IDS[7]} [^|]*\| [^|]* \| [^|]* \| 50% \|$", exercises, re.M)
    # A check none of its students started: no rate, listed last.
    alone = make_out(tmp_path / "alone", {"hal": missing})
    class_report.write(alone)
    shown = _md(alone).split("<details>")[0]  # the checks every starter passed are folded away after these
    rates = re.findall(r"^\| (— \(0/0\)|\d+% \(\d+/\d+\)) \| (\d+) \|", shown, re.M)
    assert rates[-6:] == [("— (0/0)", "1")] * 6 and all(r != "— (0/0)" for r, _ in rates[:-6])


def test_mistakes_grouped_with_the_students_who_made_them(small_class):
    data = class_data.read(small_class)
    found = [(d.exercise, d.zh, d.en, d.students) for d in data.diagnoses]
    assert found == [
        ("ex1_averaging", TRIL.zh, TRIL.en, ["cara", "dan"]),  # cara's two checks found it: counted once
        ("ex5_head", SQRT.zh, SQRT.en, ["dan"]),
    ]
    class_report.write(small_class)
    page = _html(small_class)
    mistakes = page.split('id="mistakes-table"')[1].split("</table>")[0]
    assert f"<td>{TRIL.zh}<br>{TRIL.en}</td>" in mistakes
    assert '<a href="cara/feedback.md">cara</a>, <a href="dan/feedback.md">dan</a>' in mistakes
    # The mistakes come before the exercises and checks: teachers read them first.
    assert page.index('id="mistakes"') < page.index('id="exercises"') < page.index('id="checks"') < page.index('id="help"')
    assert f"| {TRIL.zh}<br>{TRIL.en} | ex1_averaging | 2 | [cara](cara/feedback.md), [dan](dan/feedback.md) |" in _md(small_class)


BY_C = t("你按 n_embd（C）缩放了；要按 head_size 缩放。", "You scaled by n_embd (C); scale by head_size.")
BY_SHAPE = t("你按 n_embd（x.shape[-1]）缩放了；要按 head_size（k.shape[-1]）。", "You scaled by n_embd (x.shape[-1]); scale by head_size (k.shape[-1]).")
DIM0 = t("你在第 0 维（行）上做了 softmax。", "You took softmax over dim 0 (the rows).")
DIM1 = t("你在第 1 维（列）上做了 softmax。", "You took softmax over dim 1 (the columns).")


def test_one_mistake_is_one_row_however_its_checks_quote_the_input(tmp_path):
    """ex5's public and hidden checks name one mistake, each quoting its own
    input: one row of the report, one line of a Moodle comment, each student
    once. Mistakes that differ outside the quotes stay apart."""
    from grader.teacher.platforms import lms_export

    out = make_out(
        tmp_path / "out",
        {
            "kim": {"ex5_head": (wrong(BY_C), wrong(BY_SHAPE))},
            "lee": {"ex5_head": (PASS, wrong(BY_SHAPE))},
            "max": {"ex5_head": (wrong(BY_C), PASS), "ex0_weighted_sum": (wrong(DIM0), PASS)},
            "ned": {"ex5_head": (wrong(SQRT), PASS), "ex0_weighted_sum": (PASS, wrong(DIM1))},
        },
    )
    data = class_data.read(out)
    found = [(d.exercise, d.en, d.students) for d in data.diagnoses]
    assert found == [
        ("ex5_head", BY_C.en, ["kim", "lee", "max"]),
        ("ex0_weighted_sum", DIM0.en, ["max"]),
        ("ex0_weighted_sum", DIM1.en, ["ned"]),
        ("ex5_head", SQRT.en, ["ned"]),
    ]
    class_report.write(out)
    mistakes = _md(out).split("## 全班的错误 / The class's mistakes")[1].split("\n## ")[0]
    assert mistakes.count("n_embd") == 2 and "x.shape[-1]" not in mistakes  # one row, its text once in each language
    assert "| ex5_head | 3 | [kim](kim/feedback.md), [lee](lee/feedback.md), [max](max/feedback.md) |" in mistakes
    by_id = {st.id: st for st in data.students}
    kim = lms_export.comment(by_id["kim"], data)
    assert kim.count("n_embd") == 2 and kim.count("ex5_head:") == 1
    assert lms_export.comment(by_id["lee"], data).count("ex5_head:") == 1
    assert class_data.mistake_key(BY_C.en) == class_data.mistake_key(BY_SHAPE.en) != class_data.mistake_key(SQRT.en)
    assert class_data.mistake_key(DIM0.en) != class_data.mistake_key(DIM1.en)


FILLED_0 = t("你用 0 填了未来的位置：softmax 之后 0 仍然有权重。", "You filled the future with 0: a 0 still gets weight after softmax.")
ADDED = t("被遮住的分数要换成 -inf，不是加上去。", "The masked scores must be replaced by -inf, not added to.")
IN_PLACE = t("传进来的分数被改了。", "The scores passed in were changed.")


def test_one_answer_is_one_mistake_however_many_its_checks_name(tmp_path):
    """One wrong answer whose checks name two mistakes (a mask filled with 0
    that one check, on other inputs, also takes for an added mask): one row,
    the mistake most of its checks name, the first named on a tie. A
    student whose only check names the other is that mistake's row."""
    out = make_out(
        tmp_path / "out",
        {
            "ole": {"ex4_masking": (wrong(FILLED_0), wrong(ADDED))},  # a tie: the first named
            "pia": {"ex4_masking": (wrong(FILLED_0), PASS)},
            "quy": {"ex4_masking": (wrong(IN_PLACE), wrong(ADDED))},
            "rui": {"ex4_masking": (PASS, wrong(ADDED))},
        },
    )
    found = [(d.exercise, d.en, d.students) for d in class_data.read(out).diagnoses]
    assert found == [
        ("ex4_masking", FILLED_0.en, ["ole", "pia"]),
        ("ex4_masking", IN_PLACE.en, ["quy"]),
        ("ex4_masking", ADDED.en, ["rui"]),
    ]
    named = [(FILLED_0.zh, FILLED_0.en), (ADDED.zh, ADDED.en), (ADDED.zh, ADDED.en)]
    assert class_data.one_mistake(named) == (ADDED.zh, ADDED.en)  # most checks name it
    assert class_data.one_mistake(named[:2]) == (FILLED_0.zh, FILLED_0.en)


def test_per_exercise_full_marks_and_not_started(small_class):
    class_report.write(small_class)
    rows = dict(re.findall(r"<tr><td>(ex\d_\w+) [^<]*</td>((?:<td[^>]*>[^<]*</td>){3})</tr>", _html(small_class)))
    cells = {ex: re.findall(r">([^<]*)</td>", row) for ex, row in rows.items()}
    assert cells["ex4_masking"] == ["3.0 / 5", "60%", "40%"]  # ben and eve did not start it
    assert cells["ex1_averaging"] == [f"{(5 + 5 + 0 + 3 + 0) / 5:.1f} / 5", "40%", "20%"]
    assert cells["ex0_weighted_sum"] == ["4.0 / 5", "80%", "20%"]


def test_students_to_help(small_class):
    class_report.write(small_class)
    page = _html(small_class)
    lowest = page.split('id="lowest-table"')[1].split("</table>")[0]
    assert re.findall(r'<a href="(\w+)/feedback.md">', lowest) == ["ben", "cara", "dan"]  # eve started nothing: listed below; anna has full marks
    assert '<a href="eve/feedback.md">eve</a>' in page.split('id="not-started-table"')[1].split("</table>")[0]
    not_graded = page.split('id="not-graded-table"')[1].split("</table>")[0]
    assert f"<td>finn</td><td>{DIED}</td>" in not_graded  # no folder: no link
    assert f'<td><a href="gus/feedback.md">gus</a></td><td>{GRADER_ERROR}</td>' in not_graded


def test_bins():
    assert class_report.bins([0, 10, 10, 3], 10) == [(k - 0.5, k + 0.5, {0: 1, 3: 1, 10: 2}.get(k, 0)) for k in range(11)]
    tens = class_report.bins([0, 35, 34.9, 3.5, 20], 35)  # ten bins of 3.5
    assert [n for *_, n in tens] == [1, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert tens[-1][1] == 35


def test_without_matplotlib_the_report_has_counts_instead_of_figures(small_class, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    class_report.write(small_class)
    page = _html(small_class)
    assert "data:image" not in page and "no figures: matplotlib cannot be imported" in page
    lo, hi, n = class_report.bins(SMALL_TOTALS, FULL)[-1]  # the top bin: anna, and dan when FULL - 4 falls in it
    assert f'<dd id="stat-mean">{statistics.fmean(SMALL_TOTALS):.1f}</dd>' in page and f'<td>{lo:g}–{hi:g}</td><td class="n">{n}</td>' in page
    assert n >= 1


# ------------------------------------------------------------------ links


def _hrefs(page: str) -> list[str]:
    return [urllib.parse.unquote(h) for h in re.findall(r'href="([^"#][^"]*)"', page)]


def test_links_point_to_existing_feedback(tmp_path):
    out = make_out(tmp_path / "out", {"dana smith": {"ex2_scores": (wrong(TRIL), PASS)}, "李明": {"ex2_scores": (wrong(TRIL), PASS)}, "x": {}})
    class_report.write(out)
    links = _hrefs(_html(out))
    assert sorted(set(links)) == ["dana smith/feedback.md", "x/feedback.md", "李明/feedback.md"]
    assert all(os.path.isfile(os.path.join(out, link)) for link in links)
    md_links = [urllib.parse.unquote(h) for h in re.findall(r"\]\(([^)]*)\)", _md(out))]
    assert set(md_links) == set(links)


# --------------------------------------------------------------- hostile


HOSTILE_ID = "<img src=x onerror=alert(1)>"
HOSTILE_TEXT = t("<script>alert('zh')</script>", "| a | [b](javascript:alert(1)) `c` *d* __e__ & <b>")
FORMULA_ID = "=cmd|' /C calc'!A0"


@pytest.fixture
def hostile_class(tmp_path) -> str:
    students = {HOSTILE_ID: {"ex0_weighted_sum": (wrong(HOSTILE_TEXT), PASS)}, FORMULA_ID: {}, "<script>": None}
    out = make_out(tmp_path / "out", students, notes={"<script>": "-1+1 <b>bold</b> |"})
    class_report.write(out)
    return out


def test_hostile_ids_and_feedback_are_escaped_in_html(hostile_class):
    page = _html(hostile_class)
    for raw in ("<img src=x", "<script", "<b>"):
        assert raw not in page, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;script&gt;alert(&#x27;zh&#x27;)&lt;/script&gt;" in page
    assert _hrefs(page).count(f"{HOSTILE_ID}/feedback.md") >= 2  # the mistakes table and the students table
    assert '">=cmd|&#x27; /C calc&#x27;!A0</a>' in page  # grades.csv's leading ' undone
    assert "<td>-1+1 &lt;b&gt;bold&lt;/b&gt; |</td>" in page  # the note: ' undone, then escaped


def test_hostile_ids_and_feedback_are_escaped_in_markdown(hostile_class):
    text = _md(hostile_class)
    # No < starts a tag (but the report's own line breaks and folds), no [ starts a link.
    assert re.findall(r"(?<!\\)<(?!br>|/?details>|/?summary>)", text) == []
    assert not re.search(r"(?<!\\)\[b\\?\]\(javascript", text) and "\\[b\\](javascript" in text
    # Every row of every table has as many cells as its header: no | of a student's ends a cell.
    for block in re.findall(r"(?m)(?:^\|.*\n)+", text):
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in block.splitlines()}
        assert len(widths) == 1, block
    link = f"[\\<img src=x onerror=alert(1)\\>]({urllib.parse.quote(HOSTILE_ID)}/feedback.md)"
    assert link in text
    assert "\\`c\\` \\*d\\* \\_\\_e\\_\\_ \\& \\<b\\>" in text
    assert "[=cmd\\|' /C calc'\\!A0](" in text


# ------------------------------------------------------------- bad input


def test_bad_files_are_skipped_with_a_note(tmp_path):
    out = make_out(tmp_path / "out", {"ok": {}, "cut": {}, "list": {}, "nobody": None, "other": {}})
    Path(out, "cut", "results.json").write_text(json.dumps(results_of("cut", {}))[:300], encoding="utf-8")  # truncated
    Path(out, "list", "results.json").write_text("[]", encoding="utf-8")
    shutil.copy(Path(out, "ok", "results.json"), Path(out, "other", "results.json"))  # another student's
    with open(Path(out, "grades.csv"), "a", encoding="utf-8") as f:
        f.write("half a row,1,2\r\n")
    class_report.write(out)
    data = class_data.read(out)
    assert [s.id for s in data.graded] == ["ok"]
    reasons = {s.id: s.why_not_graded for s in data.students if not s.graded}
    assert reasons == {
        "cut": "评分结果无法读取 / results.json cannot be read",
        "list": "评分结果无法读取 / results.json cannot be read",
        "nobody": "没有评分结果 / no results.json",
        "other": "评分结果属于别的学生 / results.json is another student's",
    }
    assert any(p.startswith("cut/results.json") and "JSONDecodeError" in p for p in data.problems)
    assert any("line 7" in p for p in data.problems)
    page = _html(out)
    assert 'id="problems"' in page and "<td>cut</td>" not in page  # cut has a feedback.md: still linked
    assert '<a href="cut/feedback.md">cut</a>' in page


def test_a_stale_results_json_does_not_count(tmp_path):
    """The grading process died on a --force regrade: the row is zeros, the
    old results.json says full marks; grades.csv is what counts."""
    out = make_out(tmp_path / "out", {"ann": {}, "bo": {}}, notes={"bo": DIED})
    rows = Path(out, "grades.csv").read_text(encoding="utf-8").splitlines()
    rows[2] = "bo," + ",".join(["0"] * len(IDS)) + ",0," + DIED
    Path(out, "grades.csv").write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    data = class_data.read(out)
    assert [s.id for s in data.graded] == ["ann"]
    assert {s.id: s.why_not_graded for s in data.students if not s.graded} == {"bo": DIED}


FORGED = t("伪造的诊断", "a forged diagnosis")
FORGED_LINE = f"诊断 / found:    {FORGED.zh}"


def test_diagnoses_and_stubs_are_read_from_the_checks_data_never_their_feedback(tmp_path):
    """What a check found is what the grading process recorded (each test's
    extra_data), not what its feedback text seems to say: the feedback
    quotes what the submission raised and printed."""
    # A student's exception message, quoted in a fault, can start a line with anything.
    quoted = format_fault(Fault(t("你的代码抛出了 ValueError", "your code raised ValueError"), f"  ValueError: x\n{FORGED_LINE}\n                 {FORGED.en}"))
    assert f"\n{FORGED_LINE}" in quoted
    # Feedback that reads like a wrong answer's with a diagnosis, and like the stub's, recorded as neither.
    looks_diagnosed = Failed(wrong(FORGED).feedback)
    looks_like_the_stub = Failed(STUB.feedback)
    # A diagnosis the check recorded counts even where the feedback does not show it.
    recorded = Failed(wrong().feedback, SQRT)
    out = make_out(
        tmp_path / "out",
        {
            "mallory": {"ex0_weighted_sum": (Failed(quoted), looks_diagnosed), "ex2_scores": (looks_like_the_stub, looks_like_the_stub)},
            "nina": {"ex3_scaling": (recorded, PASS)},
        },
    )
    data = class_data.read(out)
    assert [s.id for s in data.graded] == ["mallory", "nina"]
    assert [(d.exercise, d.zh, d.en, d.students) for d in data.diagnoses] == [("ex3_scaling", SQRT.zh, SQRT.en, ["nina"])]
    assert {s.id: s.not_started for s in data.graded} == {"mallory": [], "nina": []}
    assert not data.problems
    class_report.write(out)
    assert FORGED.zh not in _html(out) and FORGED.en not in _md(out)


def test_an_older_graders_results_json_is_noted_and_its_feedback_not_parsed(tmp_path):
    """A results.json written before the checks had extra_data (a batch run
    without --force keeps it): graded and ranked as before, its hidden checks
    told by their tags, its feedback not read for mistakes or stubs, and a
    note in the report says so."""
    old = results_of("old", {"ex1_averaging": (wrong(TRIL), STUB), "ex2_scores": (STUB, STUB)})
    for x in old["tests"]:
        del x["extra_data"]
    out = make_out(tmp_path / "out", {"old": old, "new": {"ex1_averaging": (wrong(TRIL), PASS)}})
    data = class_data.read(out)
    assert [s.id for s in data.graded] == ["new", "old"]
    assert [(d.exercise, d.students) for d in data.diagnoses] == [("ex1_averaging", ["new"])]
    assert {s.id: s.not_started for s in data.graded} == {"new": [], "old": []}
    assert {(c.check_id, c.hidden) for c in data.checks} == {("check_a", False), ("check_b", True)}
    assert len(data.problems) == 1 and data.problems[0].startswith("old/results.json") and "--force" in data.problems[0]


def test_a_hint_that_is_not_a_diagnosis_is_not_a_mistake_found():
    from grader.authoring.checking import CheckFailed

    assert CheckFailed(t("测试", "the test"), "1", "2", TRIL, diagnosed=True).diagnosis == TRIL
    assert CheckFailed(t("测试", "the test"), "1", "2", TRIL, diagnosed=False).diagnosis is None
    assert CheckFailed(t("测试", "the test"), "1", "2", None, diagnosed=True).diagnosis is None


def test_a_forged_diagnosis_printed_and_raised_by_a_submission_is_not_counted(grader, tmp_path):
    """Graded for real: an ex3 file that prints a "诊断 / found:" line and
    raises it for head_size 16, and otherwise makes a mistake the checks
    know (dividing by head_size itself). Only that mistake is counted."""
    source = (
        "import torch\n"
        f"FORGED = '\\n{FORGED_LINE}\\n                 {FORGED.en}\\n'\n"
        "print(FORGED)\n"
        "def scale_scores(scores, head_size):\n"
        "    print(FORGED)\n"
        "    if head_size == 16:\n"
        "        raise ValueError(FORGED)\n"
        "    return scores / head_size\n"
    )
    grade = grader.grade(make_submission(tmp_path / "mallory", {"ex3_scaling": source}), only="ex3_scaling")
    assert not grade.errors, grade.errors
    results = report.results_json(grade)
    quoting = [x for x in results["tests"] if f"\n{FORGED_LINE}" in x["output"]]
    assert quoting, "the feedback quotes the forged line: the report must not believe it"
    assert all(x["extra_data"]["diagnosis"] is None for x in quoting)
    out = make_out(tmp_path / "out", {"mallory": with_batch_data(results, "mallory")})
    data = class_data.read(out)
    assert [s.id for s in data.graded] == ["mallory"]
    assert [(d.exercise, d.zh, d.en) for d in data.diagnoses] == [("ex3_scaling", SQRT.zh, SQRT.en)]
    assert data.graded[0].not_started == []


# --------------------------------------------------------- command line


def test_report_command_and_its_errors(tmp_path, small_class):
    proc = run_cli("report", small_class, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(os.path.join(small_class, "report.html")) and os.path.isfile(os.path.join(small_class, "report.md"))
    for not_out in (tmp_path / "empty", tmp_path / "missing"):
        if not_out.name == "empty":
            not_out.mkdir()
        proc = run_cli("report", str(not_out), timeout=120)
        assert proc.returncode == 2
        assert "错误 / error" in proc.stderr and "grades.csv" in proc.stderr and "不是批量评分的输出文件夹" in proc.stderr
        assert not (not_out / "report.html").exists()


def test_report_is_rebuilt_without_a_deleted_student(small_class):
    assert run_cli("report", small_class, timeout=120).returncode == 0
    assert "cara" in _html(small_class) and "cara" in _md(small_class)
    shutil.rmtree(os.path.join(small_class, "cara"))
    grades = Path(small_class, "grades.csv")
    grades.write_text("".join(line for line in grades.read_text(encoding="utf-8").splitlines(True) if not line.startswith("cara,")), encoding="utf-8")
    assert run_cli("report", small_class, timeout=120).returncode == 0
    assert "cara" not in _html(small_class) and "cara" not in _md(small_class)
    assert '<dd id="stat-students">6</dd>' in _html(small_class)


def test_grading_never_imports_the_report_or_matplotlib():
    code = (
        "import sys, grader.cli\n"
        "grader.cli._parser()\n"
        "assert 'grader.teacher.report.class_report' not in sys.modules, 'the command line imported the report'\n"
        "import grader.teacher.report.class_report\n"
        "assert 'matplotlib' not in sys.modules and 'torch' not in sys.modules, 'imported before a figure is drawn'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr


# --------------------------------------------------------------- similar


def test_similar_section_when_its_module_can_write_it(small_class, monkeypatch):
    class_report.write(small_class)
    assert 'id="similar"' not in _html(small_class)  # no similar.json: no section
    Path(small_class, "similar.json").write_text('{"pairs": [{"a": "<x>"}]}', encoding="utf-8")
    fake = types.ModuleType("grader.teacher.report.similar")
    fake.html_section = lambda data: f"<h2>相似 / Similar</h2><p>{len(data['pairs'])} pair</p>"
    fake.markdown_section = lambda data: f"## 相似 / Similar\n\n{len(data['pairs'])} pair\n"
    monkeypatch.setitem(sys.modules, "grader.teacher.report.similar", fake)
    import grader.teacher.report

    # ``from grader.teacher.report import similar`` takes the package's
    # attribute first: another test may have imported the real module already.
    monkeypatch.setattr(grader.teacher.report, "similar", fake, raising=False)
    class_report.write(small_class)
    page, text = _html(small_class), _md(small_class)
    assert '<section id="similar"><h2>相似 / Similar</h2><p>1 pair</p></section>' in page
    assert page.index('id="help"') < page.index('id="similar"') < page.index('id="students"')
    assert "## 相似 / Similar\n\n1 pair\n" in text
    # A module without the two functions: the section is left out, the report still written.
    monkeypatch.setitem(sys.modules, "grader.teacher.report.similar", types.ModuleType("grader.teacher.report.similar"))
    monkeypatch.setattr(grader.teacher.report, "similar", sys.modules["grader.teacher.report.similar"])
    class_report.write(small_class)
    assert 'id="similar"' not in _html(small_class)


# ------------------------------------------------------- a real small class


@pytest.fixture(scope="module")
def real_class(tmp_path_factory) -> str:
    """Three students of the example class graded for real (one who left
    three exercises untouched, two with diagnosed mistakes), and one whose
    folder has nothing to grade; then ``python -m grader report``."""
    root = tmp_path_factory.mktemp("real-class")
    for sid in ("ben", "dana smith", "李明"):
        shutil.copytree(os.path.join(EXAMPLES, sid), root / "class" / sid)
    (root / "class" / "zoe").mkdir()
    out = str(root / "out")
    env = {**os.environ, "PYTHONPATH": ROOT, "TMPDIR": str(root)}
    proc = python_m_grader(["batch", root / "class", "--out", out, "--inputs-seed", TEST_INPUTS_SEED], cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli("report", out, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out


def _grades(out) -> list[dict]:
    with open(os.path.join(out, "grades.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["student_id"] = r["student_id"].removeprefix("'")
    return rows


def test_real_class_report(real_class):
    data = class_data.read(real_class)
    assert [s.id for s in data.students] == ["ben", "dana smith", "zoe", "李明"]
    assert [s.id for s in data.graded] == ["ben", "dana smith", "李明"]
    assert {s.id: s.not_started for s in data.graded} == {"ben": list(IDS[4:]), "dana smith": [], "李明": []}
    tril = [d for d in data.diagnoses if "torch.tril" in d.zh]
    assert len(tril) == 1 and tril[0].exercise == "ex1_averaging" and tril[0].students == ["dana smith"]
    post_norm = [d for d in data.diagnoses if "post-norm" in d.en]
    assert len(post_norm) == 1 and post_norm[0].students == ["李明"]
    page = _html(real_class)
    zoe = page.split('id="not-graded-table"')[1].split("</table>")[0]
    assert "zoe" in zoe and "no exercise files" in zoe
    links = _hrefs(page)
    assert {"ben/feedback.md", "dana smith/feedback.md", "李明/feedback.md"} <= set(links)
    assert all(os.path.isfile(os.path.join(real_class, link)) for link in links)
    # One file that fetches nothing: no script, no address on the network.
    assert "<script" not in page and not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page)
    assert "@page { size: A4" in page and page.count("data:image/svg+xml;base64,") == 2


# ---------------------------------------------------------------- browser


CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None and os.environ.get("ATTENTION_CI"):
    raise RuntimeError("CI must run the browser test: Debian's chromium is not installed")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
SCREENSHOT = Path(tempfile.gettempdir(), "report-screenshot.png")  # for review; not kept in the project


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page that records console errors, dialogs and every request it makes."""
    context = browser.new_context(viewport={"width": 1100, "height": 1400})
    p = context.new_page()
    p.errors, p.requests = [], []
    p.on("console", lambda m: p.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    p.on("pageerror", lambda e: p.errors.append(f"page error: {e}"))
    p.on("dialog", lambda d: (p.errors.append(f"dialog: {d.message}"), d.dismiss()))
    p.on("request", lambda r: p.requests.append(r.url))
    yield p
    context.close()


def _open(page, out) -> str:
    url = Path(out, "report.html").as_uri()
    page.goto(url)
    page.wait_for_load_state("load")
    return url


@needs_chromium
def test_report_in_a_browser_agrees_with_grades_csv(real_class, page):
    url = _open(page, real_class)
    assert not page.errors, page.errors
    assert [r for r in page.requests if r != url and not r.startswith("data:")] == []
    text = page.inner_text("body")
    rows = _grades(real_class)
    assert all(r["student_id"] in text for r in rows)
    graded = [float(r["total"]) for r in rows if r["student_id"] != "zoe"]  # zoe handed in nothing
    assert page.inner_text("#stat-graded") == str(len(graded))
    assert page.inner_text("#stat-not-graded") == "1"
    assert float(page.inner_text("#stat-mean")) == round(statistics.fmean(graded), 1)
    assert float(page.inner_text("#stat-median")) == statistics.median(graded)
    shown = page.eval_on_selector_all("#students-table tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))")
    assert {cells[0]: float(cells[-2]) for cells in shown} == {r["student_id"]: float(r["total"]) for r in rows}
    assert all(page.locator("figure img").evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth > 0)"))
    page.screenshot(path=str(SCREENSHOT))


@needs_chromium
def test_hostile_report_runs_nothing_in_a_browser(hostile_class, page):
    url = _open(page, hostile_class)
    assert not page.errors, page.errors  # an alert would be a dialog
    assert [r for r in page.requests if r != url and not r.startswith("data:")] == []
    assert HOSTILE_ID in page.inner_text("#students-table")
    assert page.locator('img[src="x"]').count() == 0
