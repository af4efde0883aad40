"""Moodle's offline grading worksheet (Assignment > "Download grading
worksheet"): a CSV with one row per participant, read for when each
student handed in (``batch --worksheet``) and filled with their grade and
a comment (``export moodle``).

Its shape is Moodle's (``mod/assign/gradingtable.php``,
``mod/assign/feedback/offline/``): columns are found by their English
header text, as Moodle's own import finds them ("Identifier", "Grade",
"Maximum Grade", "Last modified (submission)", "Feedback comments",
"Status"); the identifier is "Participant N", N the participant id that also names the
student's folder in "Download all submissions"; times are
``userdate``'s "%A, %d %B %Y, %I:%M %p" ("Monday, 3 March 2025, 2:05
PM") in the downloading teacher's time zone, "-" when there is none.
"Status" is ``col_status``'s text with its parts joined by " - ": first
the submission status, "No submission" for a participant who has handed
nothing in (lang/en/assign.php: ``submissionstatus_`` and
``submissionstatus_new``), then "Overdue by: ...", "Graded", an extension.
"""

import datetime
import re

from grader.teacher.intake import platform_csv
from grader.teacher.intake.platform_csv import PlatformFileError

WHAT = "Moodle 评分表 / Moodle grading worksheet"
IDENTIFIER, GRADE, MAXIMUM, SUBMITTED, COMMENTS, STATUS = "Identifier", "Grade", "Maximum Grade", "Last modified (submission)", "Feedback comments", "Status"
NO_SUBMISSION = "No submission"
TIME_FORMAT = "%A, %d %B %Y, %I:%M %p"


class Worksheet:
    def __init__(self, path: str):
        self.table = platform_csv.read(path, WHAT)
        self.identifier, self.grade = self.table.column(IDENTIFIER), self.table.column(GRADE)
        if self.identifier is None or self.grade is None:
            raise PlatformFileError(
                f"{path}: 没有 “{IDENTIFIER}” 和 “{GRADE}” 两列，不是 Moodle 的评分表（英文界面下载） / "
                f"no “{IDENTIFIER}” and “{GRADE}” columns: not a Moodle grading worksheet (download it with Moodle in English)"
            )
        self.maximum = self.table.column(MAXIMUM)
        if self.maximum is None:
            self.maximum = self.table.column("Maximum grade")  # the header's other spelling in Moodle's strings
        self.submitted = self.table.column(SUBMITTED)
        self.comments = self.table.column(COMMENTS)
        self.status = self.table.column(STATUS)

    def no_submission(self, row: list[str]) -> bool:
        """Moodle says this participant handed nothing in."""
        if self.status is None or self.status >= len(row):
            return False
        return row[self.status].strip().split(" - ")[0].strip() == NO_SUBMISSION

    def participants(self):
        """(line number, participant id, row) of each participant's row."""
        for line, row in enumerate(self.table.rows[1:], start=2):
            if len(row) <= max(self.identifier, self.grade):
                continue
            m = re.search(r"(\d+)\s*$", row[self.identifier])
            if m:
                yield line, m.group(1), row

    def times(self, zone: datetime.tzinfo) -> dict[str, datetime.datetime]:
        """Participant id -> when they handed in, read in ``zone``;
        ``PlatformFileError`` naming the line of a time that is not Moodle's."""
        found: dict[str, datetime.datetime] = {}
        if self.submitted is None:
            return found
        for line, pid, row in self.participants():
            text = row[self.submitted].strip() if len(row) > self.submitted else ""
            if text in ("", "-"):
                continue
            try:
                local = datetime.datetime.strptime(text, TIME_FORMAT)
            except ValueError:
                raise PlatformFileError(
                    f"{self.table.path}, 第 {line} 行 / line {line}: “{SUBMITTED}” 不是 Moodle 的时间格式 / is not Moodle's time (“Monday, 3 March 2025, 2:05 PM”): {text!r}"
                ) from None
            # fold=0: of a wall time that happens twice (clocks going back), the first.
            found[pid] = local.replace(tzinfo=zone)
        return found
