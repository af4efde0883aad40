"""What the batch writes for a student (grader/teacher/batch/output.py) and
their row of grades.csv (grader/teacher/batch/grades_csv.py), without grading:
notes stay one bullet each, whatever they hold, and a late penalty is
worked out once and read by the row, the feedback, results.json and the
gradebook alike."""

import csv
import io
import json

from grader.exercises import IDS
from grader.teacher.batch import output
from grader.teacher.batch.grades_csv import LATE_COLUMNS, GradeRow
from grader.teacher.batch.output import BatchOutput, ungradable_markdown
from grader.teacher.intake.submissions import Entry
from grader.teacher.late.policy import Late

NOTES = ["忽略 / ignored: draft; v2.txt", "拒绝了不安全的路径 / refused unsafe paths: ../a.py"]
FEEDBACK = "# 评分反馈 / Feedback\n\n总分 / total: **10**\n"


class CountedLate(Late):
    """A Late that counts how often its penalty is worked out."""

    calls = 0

    def penalty(self, raw: float) -> float:
        CountedLate.calls += 1
        return super().penalty(raw)


def late_by_two_days() -> CountedLate:
    return CountedLate("2026-12-12T10:00:00+08:00", "times: times.csv", "2026-12-10T23:59:00+08:00", 2, 0, 20.0)


def points(each: float) -> dict:
    return {ex: each for ex in IDS}


def bullets(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.lstrip("> ").startswith("- ")]


def test_a_note_holding_the_separator_is_one_bullet_in_the_feedback(tmp_path):
    store = BatchOutput(str(tmp_path), "attention")
    entry = Entry("s", str(tmp_path), list(NOTES), "s", "0" * 64)
    store.write_student(entry, {"tests": []}, FEEDBACK, finished=True)
    feedback = (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")
    assert bullets(feedback) == ["> - " + note for note in NOTES]
    extra = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))["extra_data"]
    assert extra["note"] == "; ".join(NOTES)  # one text where a text is wanted


def test_an_ungradable_students_notes_are_one_bullet_each():
    assert bullets(ungradable_markdown(NOTES)) == ["- " + note for note in NOTES]


def test_the_note_cell_joins_the_notes(tmp_path):
    store = BatchOutput(str(tmp_path), "attention")
    store.add_row(GradeRow.of("s", points(1), NOTES))
    (row,) = list(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text(encoding="utf-8"))))
    assert row["note"] == "; ".join(NOTES)


def test_the_late_penalty_is_worked_out_once_and_read_everywhere(tmp_path):
    CountedLate.calls = 0
    row = GradeRow.of("s", points(2.5), [], "", late_by_two_days())
    store = BatchOutput(str(tmp_path), "attention", late=True)
    store.add_row(row)
    store.write_student(Entry("s", str(tmp_path), [], "s", "0" * 64), {"tests": []}, FEEDBACK, finished=True, late=row.late)
    gradebook = row.late.for_gradebook()
    assert CountedLate.calls == 1
    raw = 2.5 * len(IDS)
    assert (row.raw, row.late.points, row.total) == (raw, raw * 0.2, raw - raw * 0.2)
    (cells,) = list(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text(encoding="utf-8"))))
    assert [cells[c] for c in (*LATE_COLUMNS, "total")] == [f"{raw:g}", "2", f"{raw * 0.2:g}", "2026-12-12T10:00:00+08:00", "times: times.csv", f"{raw * 0.8:g}"]
    results = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    assert (results["extra_data"]["late"]["raw"], results["extra_data"]["late"]["penalty"]) == (raw, raw * 0.2)
    assert f"{raw:g} − {raw * 0.2:g} = {raw * 0.8:g}" in (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")
    assert gradebook == (raw * 0.2, "2026-12-12T10:00:00+08:00")


def test_restating_reads_the_same_penalty(tmp_path):
    """A student graded before: restating their lateness writes what the row says."""
    store = BatchOutput(str(tmp_path), "attention", late=True)
    entry = Entry("s", str(tmp_path), [], "s", "0" * 64)
    store.write_student(entry, {"tests": []}, FEEDBACK, finished=True)
    stored = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    row = GradeRow.of("s", points(2.5), [], "", late_by_two_days())
    store.restate_late(entry, stored, row.late)
    restated = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    assert restated["extra_data"]["late"] == row.late.as_dict()
    feedback = (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")
    assert feedback.count(output.LATE_START) == 1
    store.restate_late(entry, restated, None)  # no policy any more: the penalty goes
    assert output.LATE_START not in (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")


def test_a_row_without_points_is_zeros_and_names_only_when_asked(tmp_path):
    row = GradeRow.of("=s", None, [], "Ann")
    assert row.cells(named=False, late_columns=False) == ["'=s", *(["0"] * len(IDS)), "0", ""]
    assert row.cells(named=True, late_columns=True) == ["'=s", "Ann", *(["0"] * len(IDS)), "0", "0", "0", "", "", "0", ""]


GRADED = "# 评分反馈 / Feedback\n\n总分 / total: **91 / 100**\n\n| 练习 / exercise | 得分 / points | 通过 / passed |\n"


def bold_total(markdown: str) -> str:
    (line,) = [line for line in markdown.splitlines() if line.startswith("总分 / total")]
    return line


def test_a_late_students_feedback_gives_the_total_after_the_penalty_in_bold(tmp_path):
    """The bold total is what the student is given (what grades.csv and the
    platform get), the points earned beside it; restated under another
    penalty, then with none, it is worked out from the points earned each time."""
    store = BatchOutput(str(tmp_path), "attention", late=True)
    entry = Entry("s", str(tmp_path), [], "s", "0" * 64)
    row = GradeRow.of("s", {**points(0), IDS[0]: 91}, [], "", late_by_two_days())
    store.write_student(entry, {"tests": []}, GRADED, finished=True, late=row.late)
    feedback = (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")
    assert bold_total(feedback).startswith("总分 / total: **72.8 / 100**（迟交扣分前 / before the late penalty: 91 / 100）")
    assert "**91" not in feedback
    stored = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    one_day = Late("2026-12-11T10:00:00+08:00", "times: times.csv", "2026-12-10T23:59:00+08:00", 1, 0, 10.0)
    store.restate_late(entry, stored, GradeRow.of("s", {**points(0), IDS[0]: 91}, [], "", one_day).late)
    feedback = (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8")
    assert bold_total(feedback).startswith("总分 / total: **81.9 / 100**（迟交扣分前 / before the late penalty: 91 / 100）")
    store.restate_late(entry, json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8")), None)
    assert (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8") == GRADED
    on_time = Late("2026-12-10T10:00:00+08:00", "times: times.csv", "2026-12-10T23:59:00+08:00", 0, 0, 0.0)
    store.write_student(entry, {"tests": []}, GRADED, finished=True, late=GradeRow.of("s", points(1), [], "", on_time).late)
    assert (tmp_path / "s" / "feedback.md").read_text(encoding="utf-8") == GRADED  # on time: the total is the points earned


def test_results_json_names_the_exercises_without_a_file(tmp_path):
    """The class report counts an exercise with no file as not started:
    the batch says which ones the submission lacks (a .py or a notebook
    counts; a file elsewhere in the folder does not)."""
    from grader.exercises import EXERCISES

    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / EXERCISES[0].filename).write_text("x = 1\n", encoding="utf-8")
    (folder / EXERCISES[1].notebook).write_text("{}", encoding="utf-8")
    (folder / "notes").mkdir()
    (folder / "notes" / EXERCISES[2].filename).write_text("x = 1\n", encoding="utf-8")
    store = BatchOutput(str(tmp_path / "out"), "attention")
    store.write_student(Entry("s", str(folder), [], "s", "0" * 64), {"tests": []}, FEEDBACK, finished=True)
    extra = json.loads((tmp_path / "out" / "s" / "results.json").read_text(encoding="utf-8"))["extra_data"]
    assert extra["missing"] == list(IDS[2:])
    assert output.missing_exercises(None) == []
