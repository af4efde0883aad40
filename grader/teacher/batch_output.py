"""What ``batch`` writes under OUT, written atomically as each student
finishes:

- ``<id>/results.json``: what ``grade --json`` writes, with the submission's
  content hash, the student id and the note in ``extra_data``;
- ``<id>/feedback.md``: the student's feedback;
- ``grades.csv``: one row per student, sorted by id; a text cell a
  spreadsheet could take for a formula starts with ``'`` (``text_cell``).
  A platform's download gives names: then a ``name`` column follows the id.
  With a late policy it also has ``raw`` (the points earned),
  ``late_days``, ``penalty`` (points), ``submitted_at`` and ``time_source``
  (where that time came from); ``total`` is then after the penalty.

``<id>`` is ``intake.safe_name(id)``. The class report and the similarity
check read these files by the names defined here.
"""
import csv
import datetime
import io
import json
import os

from grader import markup
from grader.exercises import IDS
from grader.files import write_atomically
from grader.teacher import intake

RESULTS = "results.json"
FEEDBACK = "feedback.md"
GRADES = "grades.csv"
# grades.csv's columns after the exercises' with a late policy (``total`` and ``note`` always end it).
LATE_COLUMNS = ("raw", "late_days", "penalty", "submitted_at", "time_source")
NAME = "name"  # grades.csv's column of names, after the id, when the download gives them


def _num(x: float) -> str:
    return f"{x:g}"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# What a spreadsheet may read as the start of a formula (OWASP's list for CSV
# injection); and ', so that the escape can always be undone.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def text_cell(text: str) -> str:
    """A text cell of grades.csv that no spreadsheet evaluates: one that
    starts with = + - @ tab or CR, also after spaces (an import may trim
    them), gets a ' in front, as OWASP recommends; so does one that starts
    with ' (the original is the cell without its first ' in every case).
    Numbers are not text cells: they stay as they are."""
    return "'" + text if text.lstrip(" ").startswith(FORMULA_START) else text



class BatchOutput:
    """Everything the batch writes under OUT (see the module's docstring)."""

    def __init__(self, out: str, assignment: str, late: bool = False):
        """``late``: the batch has a late policy, and grades.csv its columns."""
        self.out, self.assignment, self.late = out, assignment, late
        self.rows: dict[str, dict] = {}
        self.names: dict[str, str] = {}  # student id -> name, where the download gives one

    def folder(self, student_id: str) -> str:
        return os.path.join(self.out, intake.safe_name(student_id))

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

    def row(self, student_id: str, points: dict | None, note: str, late=None) -> None:
        """``late``: the student's ``late_policy.Late``, with a policy."""
        points = points or {ex: 0.0 for ex in IDS}
        self.rows[student_id] = {"points": points, "note": note, "late": late}
        self.write_csv()

    def write_csv(self) -> None:
        buf = io.StringIO()
        # RFC 4180's line ends: the csv module quotes a cell with a CR in it
        # only when CR is part of the line terminator (else the row splits).
        w = csv.writer(buf, lineterminator="\r\n")
        named = bool(self.names)
        w.writerow(["student_id", *((NAME,) if named else ()), *IDS, *(LATE_COLUMNS if self.late else ()), "total", "note"])
        for sid in sorted(self.rows):
            r = self.rows[sid]
            raw = sum(r["points"].values())
            late, total, extra = r.get("late"), raw, []
            if self.late:
                penalty = late.penalty(raw) if late else 0.0
                total = raw - penalty
                extra = [_num(raw), str(late.late_days) if late else "0", _num(penalty), late.submitted_at if late else "", text_cell(late.source) if late else ""]
            name = [text_cell(self.names.get(sid, ""))] if named else []
            w.writerow([text_cell(sid), *name, *(_num(r["points"][ex]) for ex in IDS), *extra, _num(total), text_cell(r["note"])])
        write_atomically(os.path.join(self.out, GRADES), buf.getvalue())

    def write_student(self, entry, results: dict, markdown: str, finished: bool, quote_note: bool = True, late=None) -> None:
        """feedback.md, then results.json last: results.json with the hash is
        what marks the student finished. ``late`` (a ``late_policy.Late``)
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
            "note": entry.note,
        }
        if late is not None:
            raw = sum(self.points_of(results).values())
            results["extra_data"]["late"] = {**late.as_dict(), "raw": raw, "penalty": late.penalty(raw)}
            markdown = with_late(markdown, late, raw)
        if entry.note and quote_note:
            markdown = with_note(markdown, entry.note)
        write_atomically(os.path.join(folder, FEEDBACK), markdown)
        write_atomically(os.path.join(folder, RESULTS), json.dumps(results, ensure_ascii=False, indent=2) + "\n")

    def restate_late(self, entry, stored: dict, late) -> None:
        """A student graded before, whose lateness is now seen otherwise (a
        new extension, a times file, no policy at all: ``late`` None):
        their feedback and results.json say what applies now; the points
        are not graded again."""
        extra = stored.get("extra_data") if isinstance(stored.get("extra_data"), dict) else {}
        before = extra.get("late")
        raw = sum(self.points_of(stored).values())
        now = None if late is None else {**late.as_dict(), "raw": raw, "penalty": late.penalty(raw)}
        if before == now:
            return
        folder = self.folder(entry.student_id)
        try:
            with open(os.path.join(folder, FEEDBACK), encoding="utf-8") as f:
                markdown = without_late(f.read())
        except OSError:
            return
        if now is None:
            extra.pop("late", None)
        else:
            extra["late"] = now
            markdown = with_late(markdown, late, raw)
        write_atomically(os.path.join(folder, FEEDBACK), markdown)
        write_atomically(os.path.join(folder, RESULTS), json.dumps(stored, ensure_ascii=False, indent=2) + "\n")


def with_note(markdown: str, note: str) -> str:
    """``markdown`` with the note quoted under its title. A note names files
    and folders the student named (``<img src=x>.py``): Markdown shows them
    as written (``markup.markdown_text``)."""
    lines = markdown.split("\n")
    block = ["", "> 收作业时发现 / found when collecting your submission:", ">"]
    block += [f"> - {markup.markdown_text(part)}" for part in note.split("; ")]
    return "\n".join(lines[:1] + block + lines[1:])


LATE_START, LATE_END = "<!-- late -->", "<!-- /late -->"


def late_lines(late, raw: float) -> list[str]:
    """The penalty and why, in both languages, as plain text lines: the
    feedback's block and the Moodle comment say the same."""
    if late.late_days == 0:
        return []
    penalty = late.penalty(raw)
    if late.hours_known:
        lines = [
            f"截止 {late.due}，提交于 {late.submitted_at}（时间来自 {late.source}）：迟交 {late.late_days} 天（不足一天按一天计）",
            f"due {late.due}, handed in {late.submitted_at} (time from {late.source}): {late.late_days} started day(s) late",
        ]
    else:
        lines = [
            f"截止 {late.due}；{late.source} 只说迟交，没说何时提交：按迟交 1 天计",
            f"due {late.due}; {late.source} says late but not when: counted as 1 day late",
        ]
    if late.grace_used:
        lines += [f"用掉宽限 {late.grace_used} 天（不扣分）", f"{late.grace_used} grace day(s) used (no penalty for those)"]
    lines += [
        f"扣得分的 {_num(late.percent)}%：{_num(raw)} − {_num(penalty)} = {_num(raw - penalty)} 分",
        f"{_num(late.percent)}% of the points taken off: {_num(raw)} − {_num(penalty)} = {_num(raw - penalty)} points",
    ]
    return lines


def with_late(markdown: str, late, raw: float) -> str:
    """``markdown`` with the late penalty under its title (nothing when on time)."""
    lines = late_lines(late, raw)
    if not lines:
        return markdown
    head, _, rest = markdown.partition("\n")
    block = ["", LATE_START, "> 迟交 / late work:", ">", *(f"> - {line}" for line in lines), LATE_END]
    return "\n".join([head, *block, rest])


def without_late(markdown: str) -> str:
    start, end = markdown.find("\n" + LATE_START), markdown.find(LATE_END)
    if start < 0 or end < 0:
        return markdown
    return markdown[:start] + markdown[end + len(LATE_END) :]


def ungradable_markdown(note: str) -> str:
    return "\n".join(
        [
            "# 评分反馈 / Feedback",
            "",
            "总分 / total: **0**",
            "",
            "你的提交无法评分 / your submission could not be graded:",
            "",
            *(f"- {markup.markdown_text(part)}" for part in note.split("; ")),
            "",
        ]
    )
