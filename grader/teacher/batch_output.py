"""What ``batch`` writes under OUT, written atomically as each student
finishes:

- ``<id>/results.json``: what ``grade --json`` writes, with the submission's
  content hash, the student id and the note in ``extra_data``;
- ``<id>/feedback.md``: the student's feedback;
- ``grades.csv``: one row per student, sorted by id; a text cell a
  spreadsheet could take for a formula starts with ``'`` (``text_cell``).

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

    def __init__(self, out: str, assignment: str):
        self.out, self.assignment = out, assignment
        self.rows: dict[str, dict] = {}

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

    def row(self, student_id: str, points: dict | None, note: str) -> None:
        points = points or {ex: 0.0 for ex in IDS}
        self.rows[student_id] = {"points": points, "note": note}
        self.write_csv()

    def write_csv(self) -> None:
        buf = io.StringIO()
        # RFC 4180's line ends: the csv module quotes a cell with a CR in it
        # only when CR is part of the line terminator (else the row splits).
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(["student_id", *IDS, "total", "note"])
        for sid in sorted(self.rows):
            r = self.rows[sid]
            w.writerow([text_cell(sid), *(_num(r["points"][ex]) for ex in IDS), _num(sum(r["points"].values())), text_cell(r["note"])])
        write_atomically(os.path.join(self.out, GRADES), buf.getvalue())

    def write_student(self, entry, results: dict, markdown: str, finished: bool, quote_note: bool = True) -> None:
        """feedback.md, then results.json last: results.json with the hash is
        what marks the student finished."""
        folder = self.folder(entry.student_id)
        results = dict(results)
        results["extra_data"] = {
            **results.get("extra_data", {}),  # the grader's own (the inputs seed)
            "student_id": entry.student_id,
            "assignment": self.assignment,
            "submission": entry.display,
            "submission_sha256": entry.digest if finished else None,
            "graded_at": _now(),
            "note": entry.note,
        }
        if entry.note and quote_note:
            markdown = with_note(markdown, entry.note)
        write_atomically(os.path.join(folder, FEEDBACK), markdown)
        write_atomically(os.path.join(folder, RESULTS), json.dumps(results, ensure_ascii=False, indent=2) + "\n")


def with_note(markdown: str, note: str) -> str:
    """``markdown`` with the note quoted under its title. A note names files
    and folders the student named (``<img src=x>.py``): Markdown shows them
    as written (``markup.markdown_text``)."""
    lines = markdown.split("\n")
    block = ["", "> 收作业时发现 / found when collecting your submission:", ">"]
    block += [f"> - {markup.markdown_text(part)}" for part in note.split("; ")]
    return "\n".join(lines[:1] + block + lines[1:])


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
