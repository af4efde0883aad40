"""grades.csv: its columns and a row of it (``GradeRow``), in one place.

One row per student, sorted by id: ``student_id``, ``name`` when a
platform's download gives names, the points per exercise, then with a late
policy ``raw`` (the points earned), ``late_days``, ``penalty`` (points),
``submitted_at`` and ``time_source`` (where that time came from), and
always ``total`` (after the penalty) and ``note`` (the student's notes,
joined by ``intake.notes_text``). A text cell a spreadsheet could take for a
formula starts with ``'`` (``text_cell``).

A late student's penalty is worked out here once (``LatePenalty``): the
row, the feedback, results.json and the gradebook all read that one.
"""

import csv
import io
from dataclasses import dataclass

from grader.exercises import IDS
from grader.teacher.intake.submissions import notes_text
from grader.teacher.late.policy import Late

# grades.csv's columns after the exercises' with a late policy (``total`` and ``note`` always end it).
LATE_COLUMNS = ("raw", "late_days", "penalty", "submitted_at", "time_source")
NAME = "name"  # grades.csv's column of names, after the id, when the download gives them

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


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class LatePenalty:
    """What a student's lateness (``late_policy.Late``) costs the points
    they earned. The only place the penalty is computed."""

    late: Late
    raw: float  # the points earned
    points: float  # the points taken off

    @classmethod
    def of(cls, late: Late, raw: float) -> "LatePenalty":
        return cls(late, raw, late.penalty(raw))

    @property
    def total(self) -> float:
        return self.raw - self.points

    def as_dict(self) -> dict:
        """results.json's ``extra_data["late"]``."""
        return {**self.late.as_dict(), "raw": self.raw, "penalty": self.points}

    def for_gradebook(self) -> tuple[float, str]:
        """(penalty in points, submission time) as nbgrader's gradebook keeps them."""
        return self.points, self.late.submitted_at


@dataclass(frozen=True)
class GradeRow:
    """One student's row of grades.csv."""

    student_id: str
    points: dict  # exercise id -> points earned, every exercise
    notes: tuple[str, ...] = ()
    name: str = ""  # "" when the download gives none
    late: LatePenalty | None = None  # None without a late policy (with one, an on-time student costs 0)

    @classmethod
    def of(cls, student_id: str, points: dict | None, notes=(), name: str = "", late: Late | None = None) -> "GradeRow":
        """The row of ``points`` (None: not graded, a zero each) and the
        ``late_policy.Late`` of the student, if any."""
        points = dict(points or {ex: 0.0 for ex in IDS})
        return cls(student_id, points, tuple(notes), name, LatePenalty.of(late, sum(points.values())) if late is not None else None)

    @property
    def raw(self) -> float:
        return sum(self.points.values())

    @property
    def total(self) -> float:
        return self.late.total if self.late is not None else self.raw

    def cells(self, named: bool, late_columns: bool) -> list[str]:
        """The row under ``header(named, late_columns)``."""
        name = [text_cell(self.name)] if named else []
        late = self._late_cells() if late_columns else []
        return [text_cell(self.student_id), *name, *(_num(self.points[ex]) for ex in IDS), *late, _num(self.total), text_cell(notes_text(self.notes))]

    def _late_cells(self) -> list[str]:
        """Under LATE_COLUMNS; a student the policy has no word on is on time."""
        if self.late is None:
            return [_num(self.raw), "0", _num(0.0), "", ""]
        when = self.late.late
        return [_num(self.raw), str(when.late_days), _num(self.late.points), when.submitted_at, text_cell(when.source)]


def header(named: bool, late_columns: bool) -> list[str]:
    return ["student_id", *((NAME,) if named else ()), *IDS, *(LATE_COLUMNS if late_columns else ()), "total", "note"]


def csv_text(rows, named: bool, late_columns: bool) -> str:
    """grades.csv of ``rows`` (GradeRow each), sorted by id. ``named``: a
    column of names; ``late_columns``: the batch has a late policy."""
    buf = io.StringIO()
    # RFC 4180's line ends: the csv module quotes a cell with a CR in it
    # only when CR is part of the line terminator (else the row splits).
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(header(named, late_columns))
    for row in sorted(rows, key=lambda r: r.student_id):
        w.writerow(row.cells(named, late_columns))
    return buf.getvalue()
