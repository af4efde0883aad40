"""What ``batch`` writes under OUT, written atomically as each student
finishes:

- ``<id>/results.json``: what ``grade --json`` writes, with the submission's
  content hash, the student id, the notes and the exercises it has no file
  for (``missing``) in ``extra_data``;
- ``<id>/feedback.md``: the student's feedback;
- ``grades.csv``: one row per student (``grades_csv``, which knows its
  columns), rewritten as each row comes in.

``<id>`` is ``submissions.safe_name(id)``. The class report and the similarity
check read these files by the names defined here.
"""

import datetime
import json
import os
import re

from grader.exercises import EXERCISES, IDS
from grader.files import write_atomically
from grader.student import markup
from grader.teacher.batch import grades_csv
from grader.teacher.batch.grades_csv import GradeRow, LatePenalty
from grader.teacher.intake import submissions

RESULTS = "results.json"
FEEDBACK = "feedback.md"
GRADES = "grades.csv"


def _num(x: float) -> str:
    return f"{x:g}"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class BatchOutput:
    """Everything the batch writes under OUT (see the module's docstring)."""

    def __init__(self, out: str, assignment: str, late: bool = False, named: bool = False):
        """``late``: the batch has a late policy, and grades.csv its columns;
        ``named``: the download gives names, and grades.csv a column of them."""
        self.out, self.assignment, self.late, self.named = out, assignment, late, named
        self._rows: dict[str, GradeRow] = {}  # student id -> their row of grades.csv

    def folder(self, student_id: str) -> str:
        return os.path.join(self.out, submissions.safe_name(student_id))

    def stored(self, entry) -> dict | None:
        """The results.json of this very submission, if it has been graded."""
        path = os.path.join(self.folder(entry.student_id), RESULTS)
        try:
            if os.path.getsize(path) > 64 * 1024**2:
                return None
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        extra = data.get("extra_data") if isinstance(data, dict) else None
        if not isinstance(extra, dict) or extra.get("submission_sha256") != entry.digest or entry.digest is None:
            return None
        if not isinstance(data.get("tests"), list):
            return None
        return data

    @staticmethod
    def points_of(results: dict) -> dict:
        """Exercise id -> the points a stored results.json earned."""
        got = {ex: 0.0 for ex in IDS}
        for t in results.get("tests", []):
            try:
                ex = t["tags"][0]
                if ex in got:
                    got[ex] += float(t["score"])
            except (KeyError, IndexError, TypeError, ValueError):
                continue
        return got

    def add_row(self, row: GradeRow) -> None:
        """A student's row, written to grades.csv at once."""
        self.add_rows([row])

    def add_rows(self, rows) -> None:
        """Rows (``GradeRow`` each) in place of those of the same ids; grades.csv written once."""
        for row in rows:
            self._rows[row.student_id] = row
        write_atomically(os.path.join(self.out, GRADES), grades_csv.csv_text(self._rows.values(), self.named, self.late))

    def write_student(self, entry, results: dict, markdown: str, finished: bool, quote_notes: bool = True, late: LatePenalty | None = None) -> None:
        """feedback.md, then results.json last: results.json with the hash is
        what marks the student finished. ``late`` (the row's ``LatePenalty``)
        puts the penalty in both."""
        folder = self.folder(entry.student_id)
        results = dict(results)
        results["extra_data"] = {
            **results.get("extra_data", {}),  # the grader's own (the inputs seed)
            "student_id": entry.student_id,
            "name": entry.name,
            "assignment": self.assignment,
            "submission": entry.display,
            "submission_sha256": entry.digest if finished else None,
            "graded_at": _now(),
            "note": submissions.notes_text(entry.notes),
        }
        missing = missing_exercises(entry.folder) if finished else []
        if missing:
            results["extra_data"]["missing"] = missing
        if late is not None:
            results["extra_data"]["late"] = late.as_dict()
            markdown = with_late(markdown, late)
        if entry.notes and quote_notes:
            markdown = with_notes(markdown, entry.notes)
        write_atomically(os.path.join(folder, FEEDBACK), markdown)
        write_atomically(os.path.join(folder, RESULTS), json.dumps(results, ensure_ascii=False, indent=2) + "\n")

    def restate_late(self, entry, stored: dict, late: LatePenalty | None) -> None:
        """A student graded before, whose lateness is now seen otherwise (a
        new extension, a times file, no policy at all: ``late`` None):
        their feedback and results.json say what applies now; the points
        are not graded again."""
        extra = stored["extra_data"] if isinstance(stored.get("extra_data"), dict) else {}
        now = None if late is None else late.as_dict()
        if extra.get("late") == now:
            return
        folder = self.folder(entry.student_id)
        try:
            with open(os.path.join(folder, FEEDBACK), encoding="utf-8") as f:
                markdown = without_late(f.read())
        except OSError:
            return
        if late is None:
            extra.pop("late", None)
        else:
            extra["late"] = now
            markdown = with_late(markdown, late)
        write_atomically(os.path.join(folder, FEEDBACK), markdown)
        write_atomically(os.path.join(folder, RESULTS), json.dumps(stored, ensure_ascii=False, indent=2) + "\n")


def missing_exercises(folder: str | None) -> list[str]:
    """The exercises the submission has no file for (neither ``<id>.py``
    nor ``<id>.ipynb`` where the grader looks, ``grader.handin.submission``):
    not started, for the class report, as much as an untouched stub is.
    Only the names are looked at, never the files."""
    if not folder:
        return []
    return [ex.id for ex in EXERCISES if not any(os.path.lexists(os.path.join(folder, name)) for name in (ex.filename, ex.notebook))]


def with_notes(markdown: str, notes) -> str:
    """``markdown`` with the notes quoted under its title, one bullet each.
    A note names files and folders the student named (``<img src=x>.py``):
    Markdown shows them as written (``markup.markdown_text``)."""
    lines = markdown.split("\n")
    block = ["", "> 收作业时发现 / found when collecting your submission:", ">"]
    block += [f"> - {markup.markdown_text(note)}" for note in notes]
    return "\n".join(lines[:1] + block + lines[1:])


LATE_START, LATE_END = "<!-- late -->", "<!-- /late -->"


def late_lines(late: LatePenalty) -> list[str]:
    """The penalty and why, in both languages, as plain text lines: the
    feedback's block and the Moodle comment say the same."""
    when = late.late
    if when.late_days == 0:
        return []
    raw, penalty = late.raw, late.points
    if when.hours_known:
        lines = [
            f"截止 {when.due}，提交于 {when.submitted_at}（时间来自 {when.source}）：迟交 {when.late_days} 天（不足一天按一天计）",
            f"due {when.due}, handed in {when.submitted_at} (time from {when.source}): {when.late_days} started day(s) late",
        ]
    else:
        lines = [
            f"截止 {when.due}；没有提交时间，只有 {when.source}（只说迟交，没说何时提交）：按迟交 1 天计",
            f"due {when.due}; no submission time, only {when.source} (late, but not when): counted as 1 day late",
        ]
    if when.grace_used:
        lines += [f"用掉宽限 {when.grace_used} 天（不扣分）", f"{when.grace_used} grace day(s) used (no penalty for those)"]
    lines += [
        f"扣得分的 {_num(when.percent)}%：{_num(raw)} − {_num(penalty)} = {_num(late.total)} 分",
        f"{_num(when.percent)}% of the points taken off: {_num(raw)} − {_num(penalty)} = {_num(late.total)} points",
    ]
    return lines


# The feedback's total line (grader.student.report.markdown), and ours when a
# penalty applies: the total the student is given, in bold, the points
# earned beside it. The comment marks it as ours, so that it can be undone.
_TOTAL = re.compile(r"^总分 / total: \*\*(?P<got>[^*/]+) / (?P<most>[^*]+)\*\*$", re.MULTILINE)
_LATE_TOTAL = re.compile(r"^总分 / total: \*\*[^*]+\*\*（迟交扣分前 / before the late penalty: (?P<got>[^/]+) / (?P<most>[^）]+)）<!-- late total -->$", re.MULTILINE)


def _late_total(match: re.Match, late: LatePenalty) -> str:
    most = match["most"].strip()
    return f"总分 / total: **{_num(late.total)} / {most}**（迟交扣分前 / before the late penalty: {match['got'].strip()} / {most}）<!-- late total -->"


def with_late(markdown: str, late: LatePenalty) -> str:
    """``markdown`` with the late penalty under its title and its total the
    one after the penalty, the points earned beside it (nothing changed
    when on time)."""
    lines = late_lines(late)
    if not lines:
        return markdown
    markdown = _TOTAL.sub(lambda m: _late_total(m, late), markdown, count=1)
    head, _, rest = markdown.partition("\n")
    block = ["", LATE_START, "> 迟交 / late work:", ">", *(f"> - {line}" for line in lines), LATE_END]
    return "\n".join([head, *block, rest])


def without_late(markdown: str) -> str:
    """``markdown`` as it was before ``with_late``."""
    markdown = _LATE_TOTAL.sub(lambda m: f"总分 / total: **{m['got'].strip()} / {m['most'].strip()}**", markdown, count=1)
    start, end = markdown.find("\n" + LATE_START), markdown.find(LATE_END)
    if start < 0 or end < 0:
        return markdown
    end += len(LATE_END)
    return markdown[:start] + markdown[end + markdown.startswith("\n", end) :]  # the line break with_late added too


def ungradable_markdown(notes) -> str:
    return "\n".join(
        [
            "# 评分反馈 / Feedback",
            "",
            "总分 / total: **0**",
            "",
            "你的提交无法评分 / your submission could not be graded:",
            "",
            *(f"- {markup.markdown_text(note)}" for note in notes),
            "",
        ]
    )
