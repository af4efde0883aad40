"""``python -m grader export canvas|moodle OUT``: a batch's grades put back
into the file the platform imports.

- ``canvas``: the gradebook CSV the teacher exported (Grades > Export) with
  one assignment's column filled (``--column "<assignment> (<id>)"``).
  Canvas's layout (canvas-lms ``lib/gradebook_exporter.rb``, read back by
  its ``GradebookImporter``): "Student", "ID" (the user id), "SIS User ID",
  "SIS Login ID", "Section", then the assignments; a "Points Possible" row
  (and a "Manual Posting" row when grades are posted by hand) before the
  students. Students are matched by Canvas id, then SIS login (or SIS user
  id), then name. The Points Possible row is the one Canvas writes there,
  its ids empty (``_points_possible``); a student may take that name, and
  their row is neither filled nor written (``_misread_as_points_possible``).
- ``moodle``: the offline grading worksheet (``moodle_worksheet``) with its
  "Grade" filled and its "Feedback comments" a short summary: points per
  exercise, mistakes found and the late penalty. Moodle saves an imported
  comment as HTML (mod/assign/feedback/comments/locallib.php,
  ``set_editor_text``: ``FORMAT_HTML``), and replaces the one there: the
  text is escaped, its lines joined by ``<br>``. Matched by participant id,
  then email, then name.

The grade is grades.csv's ``total`` (after any late penalty), scaled to
the platform's points possible when the assignment there is out of another
number (the line printed says so). Every other cell, row (but a
student's row Canvas would take for Points Possible), the byte-order
mark and the separator stay as they were. No cell we write starts with
what a spreadsheet would run.

Rows the platform itself says are not to be graded are left alone and
listed as such, and the file is written: Canvas's Test Student
(``_canvas_test_students``) and a Moodle participant whose status is "No
submission" (``moodle_worksheet``'s ``no_submission``), when the batch has no result for
them. Every other student of either side left unmatched, or in a row
Canvas would read as Points Possible, is listed; the file is then not
written, and the exit code is 1, unless ``--allow-unmatched``.
"""

import html
import re
import sys
import unicodedata
from dataclasses import dataclass, field

from grader.exercises import EXERCISES
from grader.teacher.batch.grades_csv import text_cell
from grader.teacher.intake import platform_csv
from grader.teacher.intake.moodle_worksheet import Worksheet
from grader.teacher.intake.platform_csv import PlatformFileError
from grader.teacher.options import CommandOptions, OptionError
from grader.teacher.report import class_data
from grader.text import visible

POINTS = {e.id: e.points for e in EXERCISES}
FULL_MARKS = float(sum(POINTS.values()))


def _err(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _usage(message: str) -> int:
    _err(f"python -m grader export: 错误 / error: {message}")
    return 2


PLATFORMS = ("canvas", "moodle")


@dataclass(frozen=True)
class ExportOptions(CommandOptions):
    """What ``python -m grader export`` is asked to do."""

    platform: str  # one of PLATFORMS
    out: str  # the folder `batch --out` wrote (with grades.csv)
    to: str  # the file to write, for the platform's import
    gradebook: str | None = None  # canvas: the gradebook CSV exported from Canvas
    column: str | None = None  # canvas: the assignment's column, "<assignment> (<id>)" or its title alone
    worksheet: str | None = None  # moodle: the grading worksheet
    allow_unmatched: bool = False  # write the file even when some students could not be matched

    def __post_init__(self) -> None:
        self._check_choice("platform", PLATFORMS)
        if self.platform == "canvas" and not (self.gradebook and self.column):
            raise OptionError("canvas 需要 --gradebook 和 --column / canvas needs --gradebook and --column")
        if self.platform == "moodle" and not self.worksheet:
            raise OptionError("moodle 需要 --worksheet / moodle needs --worksheet")
        self._check_paths("out", "to", "gradebook", "worksheet")
        self._check_texts("column")
        self._check_flags("allow_unmatched")


def name_key(name: str) -> str:
    """A name as both sides can be compared: letters and digits only, case
    folded ("Smith, John", "smithjohn" and "John Smith" differ only in order,
    so order counts: Canvas's download names students "Last, First" too)."""
    return "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if c.isalnum())


def _number(text: str) -> float | None:
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        return None


def _grade_text(value: float, decimal_comma: bool) -> str:
    text = f"{round(value, 2):g}"
    return text.replace(".", ",") if decimal_comma else text


@dataclass
class Matching:
    """Which platform row each batch student went to, and who is left."""

    rows: dict[str, int]  # student id -> row index
    ours_unmatched: list[str]  # "id (name)"
    theirs_without_result: list[str]  # the platform row's name and id
    theirs_left: dict[int, str] = field(default_factory=dict)  # row index -> how it is shown, for each in theirs_without_result

    def leave_alone(self, indices) -> list[str]:
        """Rows of the platform's without a result that the platform says
        are not to be graded: out of ``theirs_without_result``, and how
        each is shown, for the list of those left alone."""
        shown = [self.theirs_left[i] for i in indices if i in self.theirs_left]
        for i in indices:
            self.theirs_left.pop(i, None)
        self.theirs_without_result = list(self.theirs_left.values())
        return shown


def match(students: list, rows: dict[int, dict], keys: list[str]) -> Matching:
    """``rows``: row index -> {key: value} for the platform's students;
    ``keys``: which of those keys hold an id, tried in order, before "name"."""
    taken: dict[int, str] = {}
    found: dict[str, int] = {}
    for key in [*keys, "name"]:
        index: dict[str, list[int]] = {}
        for i, r in rows.items():
            value = name_key(r.get(key, "")) if key == "name" else r.get(key, "").strip()
            if value and i not in taken:
                index.setdefault(value, []).append(i)
        for s in students:
            if s.id in found:
                continue
            wanted = [name_key(s.name), name_key(s.id)] if key == "name" else [s.id.strip()]
            for w in wanted:
                hits = [i for i in index.get(w, []) if i not in taken]
                if len(hits) == 1:  # two rows of one name: neither is guessed
                    found[s.id] = hits[0]
                    taken[hits[0]] = s.id
                    break
    # Names as the terminal shows them: a student chooses their platform name.
    ours = [visible(f"{s.id}" + (f" ({s.name})" if s.name else ""), name=True) for s in students if s.id not in found]
    theirs = {i: visible(f"{r.get('name', '')} ({r.get(keys[0], '')})", name=True) for i, r in rows.items() if i not in taken}
    return Matching(found, ours, list(theirs.values()), theirs)


def comment(s, data) -> str:
    """The Moodle comment: points per exercise, the mistakes the checks
    recognised, the late penalty; both languages, as escaped HTML (Moodle
    imports it as HTML: the lines would run into one paragraph)."""
    lines = []
    late = s.late or {}
    raw = late.get("raw")
    lines.append(f"总分 / total: {s.total:g}/{FULL_MARKS:g}" + (f"（迟交扣分前 / before the late penalty {raw}）" if raw and _number(raw) != s.total else ""))
    lines.append("; ".join(f"{ex} {s.points[ex]:g}/{POINTS.get(ex, data.maxima.get(ex, 0)):g}" for ex in data.exercises))
    for d in data.diagnoses:
        if s.id in d.students:
            lines.append(f"{d.exercise}: {d.zh} / {d.en}")
    if s.late_days:
        lines.append(f"迟交 {s.late_days} 天，扣 {late.get('penalty')} 分 / {s.late_days} day(s) late: {late.get('penalty')} points off ({late.get('time_source')})")
    if not s.graded:
        lines.append(f"未评分 / not graded: {s.why_not_graded or s.note}")
    return text_cell("<br>".join(html.escape(line, quote=False) for line in lines))


def _report(m: Matching, written: int, to: str, allow: bool, data=None, misread: dict | None = None, left_alone: dict | None = None) -> int:
    """What the export did, on stderr, and its exit code: 1 (and nothing
    written) when a student is left unmatched without ``--allow-unmatched``.
    ``left_alone``: (Chinese, English) of why -> the platform's rows left as
    they were because the platform says they are not to be graded; listed,
    never a reason to stop."""
    for s in data.students if data else []:
        if not s.graded and s.id in m.rows:
            _err(f"未评分，填 {s.total:g} / not graded, {s.total:g} filled in: {s.id}: {s.why_not_graded or s.note}")
    alone = sum(len(who) for who in (left_alone or {}).values())
    for (zh, en), who in (left_alone or {}).items():
        if who:
            _err(f"未改动：{zh} / left alone: {en}: {', '.join(who)}")
    for who in m.ours_unmatched:
        _err(f"未匹配：平台文件里找不到 / not matched, not in the platform's file: {who}")
    for who in m.theirs_without_result:
        _err(f"没有成绩：平台上的学生不在本批 / no result, a student of the platform's file not in the batch: {who}")
    for who in (misread or {}).values():
        _err(
            f"未填，不写入这一行：Canvas 导入时会把它当作 Points Possible 行，请在 Canvas 里手动给分 / "
            f"not filled and left out of the file: Canvas's import would take this row for the Points Possible row; grade them by hand in Canvas: {who}"
        )
    left = len(m.ours_unmatched) + len(m.theirs_without_result) + len(misread or {})
    if left and not allow:
        _err(f"未写入 / not written: {left} 名学生未匹配 / students left unmatched (--allow-unmatched writes it anyway)")
        return 1
    print(
        f"已填 / filled {written} 名学生 / students → {to}" + (f"; {alone} 行未改动 / rows left alone" if alone else "") + (f"; {left} 名未匹配 / left unmatched" if left else ""),
        flush=True,
    )
    return 0


def _canvas(options: ExportOptions, data) -> int:
    assert options.gradebook and options.column  # ExportOptions holds canvas to both
    table = platform_csv.read(options.gradebook, "Canvas 成绩册 / Canvas gradebook export")
    header = [c.strip().lstrip("\ufeff") for c in table.header]
    if not header or ("Student" not in header[0] and header[:2] != ["LastName", "FirstName"]) or "ID" not in header:
        raise PlatformFileError(f"{options.gradebook}: 第一行不是 Canvas 成绩册的表头（Student, ID, …） / the first row is not a Canvas gradebook's header (Student, ID, …)")
    col = table.column(options.column)
    if col is None:
        # The title alone, when one column has it: "Attention" for "Attention (777)".
        titled = [i for i, h in enumerate(header) if re.fullmatch(rf"{re.escape(options.column.strip())} \(\d+\)", h)]
        col = titled[0] if len(titled) == 1 else None
    if col is None:
        shown = ", ".join(h for h in header if re.search(r"\(\d+\)$", h))
        return _usage(f"成绩册里没有这一列 / no column {options.column!r} in {options.gradebook} (its assignments: {shown})")
    cols = {key: table.column(key) for key in ("ID", "SIS Login ID", "SIS User ID")}
    first_last = header[:2] == ["LastName", "FirstName"]
    possible, rows = _points_possible(table, col, cols), {}
    for i, row in enumerate(table.rows[1:], start=1):
        cells = row + [""] * (len(header) - len(row))
        if i == possible[0] or all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in cells):
            continue  # the Points Possible row, the Manual Posting row, blank lines
        name = f"{cells[0]}, {cells[1]}" if first_last else cells[0]
        rows[i] = {"name": name, **{k: cells[c] for k, c in cols.items() if c is not None}}
    m = match(data.students, rows, [k for k, c in cols.items() if c is not None])
    misread = _misread_as_points_possible(table, rows, m)
    left_alone = {TEST_STUDENT: m.leave_alone(_canvas_test_students(rows, m))}
    scale = (possible[1] / FULL_MARKS) if possible[1] and possible[1] != FULL_MARKS else 1.0
    if scale != 1.0:
        print(f"按 Canvas 的满分换算 / scaled to Canvas's points possible: {FULL_MARKS:g} → {possible[1]:g}", flush=True)
    by_id = {s.id: s for s in data.students}
    for sid, i in m.rows.items():
        row = table.rows[i]
        row.extend([""] * (col + 1 - len(row)))
        row[col] = _grade_text(by_id[sid].total * scale, table.delimiter == ";")
    code = _report(m, len(m.rows), options.to, options.allow_unmatched, data, misread, left_alone)
    if code == 0:
        table.rows = [r for i, r in enumerate(table.rows) if i not in misread]
        table.write(options.to)
    return code


def _points_possible(table, col: int, cols: dict) -> tuple[int | None, float | None]:
    """(row index, value in the column) of the gradebook's Points Possible
    row, (None, None) without one. Canvas's exporter writes it once, right
    after the header and the hidden-assignments ("Manual Posting") row, with
    "    Points Possible" in the first cell and every id cell empty
    (lib/gradebook_exporter.rb); a student's row always has their id. So it
    is that row there, and never a row of that name further down: a student
    may call themselves "Points Possible"."""
    ids = [c for c in cols.values() if c is not None]
    for i, row in enumerate(table.rows[1:], start=1):
        cells = row + [""] * (len(table.header) - len(row))
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in cells):
            continue
        if "Points Possible" in cells[0] and not any(cells[c].strip() for c in ids):
            return i, _number(cells[col])
        return None, None
    return None, None


TEST_STUDENT = ("Canvas 的测试学生（学生视图），不是学生", "Canvas's Test Student (Student View), not a student")
NO_SUBMISSION = ("Moodle 评分表里的 “No submission”（没有提交）", "“No submission” in Moodle's worksheet")
# Canvas's Test Student: the user ``Course#student_view_student`` makes,
# named "Test Student" (the gradebook shows the sortable name "Student,
# Test"), with a login that is ``Canvas::Security.hmac_sha1("Test
# Student_<id>")``: 40 hex digits (app/models/course.rb).
_TEST_STUDENT_NAMES = {name_key("Student, Test"), name_key("Test Student")}
_HMAC_SHA1 = re.compile(r"[0-9a-f]{40}")


def _canvas_test_students(rows: dict, m: Matching) -> list[int]:
    """Row indices of Canvas's Test Student(s) among the rows without a
    result. Canvas's exporter writes the Student View enrollments after
    every other student (lib/gradebook_exporter.rb, ``enrollments_for_csv``:
    ``partition { |e| e.type != "StudentViewEnrollment" }``), so they are
    the last rows of the file; each has the Test Student's name or its
    hashed login (the name is translated where Canvas is not in English).
    A student who merely calls themselves "Test Student" is matched by id
    first, or is not in that last run of rows, and is not left alone."""
    found = []
    for i in sorted(rows, reverse=True):
        r = rows[i]
        login = r.get("SIS Login ID", "").strip()
        if i in m.rows.values() or not (name_key(r.get("name", "")) in _TEST_STUDENT_NAMES or _HMAC_SHA1.fullmatch(login)):
            break
        found.append(i)
    return found


def _misread_as_points_possible(table, rows: dict, m: Matching) -> dict[int, str]:
    """Students' rows whose first cell holds "Points Possible": Canvas's
    importer takes every such row for the Points Possible row
    (lib/gradebook_importer.rb, ``check_for_non_student_row``) and would
    set each assignment's points from it. They are not filled and are
    left out of the file written (Canvas then leaves those students'
    grades as they are); row index -> how the row is shown."""
    misread = {i: visible(f"{r['name']} ({r.get('ID', '')})", name=True) for i, r in rows.items() if "Points Possible" in table.rows[i][0]}
    for sid, i in list(m.rows.items()):
        if i in misread:
            del m.rows[sid]
    m.theirs_without_result = [t for t in m.theirs_without_result if t not in misread.values()]
    return misread


def _moodle(options: ExportOptions, data) -> int:
    assert options.worksheet  # ExportOptions holds moodle to it
    sheet = Worksheet(options.worksheet)
    table = sheet.table
    name_col, email_col = table.column("Full name"), table.column("Email address")
    rows = {}
    for line, pid, row in sheet.participants():
        i = line - 1
        rows[i] = {"pid": pid, "name": row[name_col] if name_col is not None and name_col < len(row) else "", "email": row[email_col] if email_col is not None and email_col < len(row) else ""}
    m = match(data.students, rows, ["pid", "email"])
    left_alone = {NO_SUBMISSION: m.leave_alone([i for i in m.theirs_left if sheet.no_submission(table.rows[i])])}
    if sheet.comments is None:
        _err("评分表没有 “Feedback comments” 列（作业未启用反馈评语）：只填成绩 / the worksheet has no “Feedback comments” column (feedback comments are off in the assignment): grades only")
    by_id = {s.id: s for s in data.students}
    scaled = set()
    for sid, i in m.rows.items():
        row = table.rows[i]
        s = by_id[sid]
        most = _number(row[sheet.maximum]) if sheet.maximum is not None and sheet.maximum < len(row) else None
        scale = most / FULL_MARKS if most else 1.0
        if scale != 1.0:
            scaled.add(most)
        assert sheet.grade is not None  # a worksheet without its Grade column is refused when read
        row[sheet.grade] = _grade_text(s.total * scale, False)
        if sheet.comments is not None:
            row.extend([""] * (sheet.comments + 1 - len(row)))
            row[sheet.comments] = comment(s, data)
    for most in sorted(x for x in scaled if x is not None):
        print(f"按 Moodle 的满分换算 / scaled to Moodle's maximum grade: {FULL_MARKS:g} → {most:g}", flush=True)
    code = _report(m, len(m.rows), options.to, options.allow_unmatched, data, left_alone=left_alone)
    if code == 0:
        table.write(options.to)
    return code


def run(args) -> int:
    """``python -m grader export``: argparse's namespace made an ``ExportOptions`` once, and the file written."""
    try:
        options = ExportOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return export(options)


def export(options: ExportOptions) -> int:
    """Fill the platform's file from the batch in ``options.out`` and write
    it to ``options.to``; the exit code (1: students left unmatched, nothing
    written; 2: a usage error)."""
    try:
        data = class_data.read(options.out)
    except class_data.NotBatchOutput:
        return _usage(f"{options.out} 不是批量评分的输出文件夹（没有 grades.csv） / is not the output of `python -m grader batch` (no grades.csv)")
    try:
        return _canvas(options, data) if options.platform == "canvas" else _moodle(options, data)
    except PlatformFileError as exc:
        return _usage(str(exc))
