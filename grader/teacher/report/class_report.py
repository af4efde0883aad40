"""The class report: ``OUT/report.html`` and ``OUT/report.md`` from a batch's OUT.

``write(out)`` reads OUT (``class_data``), lays the report out once as a
list of sections made of a few kinds of blocks, and renders that list twice:
as one self-contained HTML page (inline CSS, figures as data: URIs, nothing
fetched, A4 when printed) and as Markdown. Both say everything in Chinese
and English. The order puts what a teacher acts on first: the totals, then
the mistakes the class made, then exercises, checks and the students to help.

Every id and every text that comes from OUT is the students' (a folder may
be named ``<script>``): it is escaped for HTML, or for Markdown, where it is
written, never before (``grader.student.markup``, which also shows control
characters in it as escapes).

``python -m grader report OUT`` (``run``: its options, a ``ReportOptions``,
to ``rebuild``) rebuilds the report without regrading; ``write`` is what a
batch calls when it has finished.
"""

import base64
import json
import os
import statistics
import sys
import urllib.parse
from dataclasses import dataclass, field

from grader.exercises import BY_ID
from grader.files import write_atomically
from grader.student.markup import html_text, markdown_text
from grader.teacher.options import CommandOptions, OptionError
from grader.teacher.report import class_data

HTML_NAME, MD_NAME = "report.html", "report.md"
SIMILAR = "similar.json"  # written by ``grader similar``; its section is that module's
LOWEST = 10  # students listed under "lowest totals", at least (more if more are below half marks)


# ------------------------------------------------------------- the blocks


@dataclass
class Link:
    text: str
    href: str  # relative to OUT, not yet URL-quoted


# A table cell is a str, a Link, a tuple of str (lines) or a list of cells (a comma-separated list).


@dataclass
class Table:
    head: list[str]
    rows: list[list]
    numeric: tuple = ()  # columns aligned right
    id: str = ""
    nowrap: tuple = ()  # columns of short codes (ex4_masking) that must not break
    widths: tuple = ()  # CSS widths of the first columns, where the browser's guess would squeeze text


@dataclass
class Stats:
    """Key numbers, each with an id the page can be checked by."""

    items: list[tuple[str, str, str]]  # (id, label, value)


@dataclass
class Para:
    text: str


@dataclass
class Heading:
    text: str


@dataclass
class Figure:
    svg: str
    caption: str
    alt: str
    counts: Table | None = None  # what Markdown shows in its place


@dataclass
class Raw:
    """A section written by another module, already in each format."""

    html: str
    md: str


@dataclass
class Folded:
    """Blocks the reader opens if they want them (HTML's ``<details>``, which Markdown viewers show too)."""

    summary: str
    blocks: list


@dataclass
class Section:
    id: str
    title: str  # for the contents; also the heading unless the blocks bring their own
    blocks: list = field(default_factory=list)
    heading: bool = True


# ----------------------------------------------------------- the numbers


def _num(x: float) -> str:
    return f"{x:g}"


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def bins(values: list[float], maximum: float) -> list[tuple[float, float, int]]:
    """(low, high, count) for a histogram of ``values`` from 0 to ``maximum``:
    a bar per point while points are whole and few (up to 25), else ten equal
    bins, each holding its low edge, the last also the maximum."""
    if maximum <= 0:
        return []
    values = [min(max(v, 0.0), maximum) for v in values]
    if maximum <= 25 and float(maximum).is_integer() and all(float(v).is_integer() for v in values):
        return [(k - 0.5, k + 0.5, sum(v == k for v in values)) for k in range(int(maximum) + 1)]
    width = maximum / 10
    counts = [0] * 10
    for v in values:
        counts[min(int(v / width), 9)] += 1
    return [(i * width, (i + 1) * width, n) for i, n in enumerate(counts)]


def _bin_label(lo: float, hi: float) -> str:
    return _num(lo + 0.5) if hi - lo == 1 and (lo + 0.5).is_integer() else f"{_num(lo)}–{_num(hi)}"


def _exercise_name(ex: str) -> str:
    e = BY_ID.get(ex)
    return f"{ex} {e.zh} / {e.en}" if e else ex


def _student(s: class_data.Student):
    """The student as the report names them: their id, and the name the
    platform's download gave; a link to their feedback."""
    label = f"{s.id} {s.name}" if s.name and s.name != s.id else s.id
    return Link(label, s.feedback) if s.feedback else label


def _when(iso: str) -> str:
    """An ISO 8601 time as people read it: "2026-12-12 10:00 (+08:00)"."""
    if len(iso) < 16 or iso[10] != "T":
        return iso or "—"
    offset = iso[19:].lstrip(".0123456789")
    return f"{iso[:10]} {iso[11:16]}" + (f" ({offset})" if offset else "")


# ----------------------------------------------------------- the sections


def sections(data: class_data.ClassData, similar: Section | None = None) -> list[Section]:
    graded = data.graded
    totals = [s.total for s in graded]
    mean = statistics.fmean(totals) if totals else None
    median = statistics.median(totals) if totals else None
    out = [
        _totals(data, totals, mean, median),
        _mistakes(data),
        _exercises(data),
        _checks(data),
        _to_help(data),
        *([_late(data)] if any(st.late for st in data.students) else []),
        *([similar] if similar else []),
        _all_students(data),
    ]
    # Last, and after the figures were drawn: a figure that could not be drawn is one more note.
    if data.problems:
        out.append(Section("problems", "说明 / Notes", [Table(["跳过或缺少的内容 / what was skipped or is missing"], [[p] for p in data.problems])]))
    return out


def _totals(data, totals, mean, median) -> Section:
    n_not_started = sum(s.started_nothing for s in data.students)
    section = Section("totals", "总体 / Totals")
    section.blocks.append(
        Stats(
            [
                ("students", "学生 / students", str(len(data.students))),
                ("graded", "已评分 / graded", str(len(totals))),
                ("not-graded", "未评分 / not graded", str(len(data.students) - len(totals))),
                ("not-started", "全未开始 / started nothing", str(n_not_started)),
                ("mean", "平均分 / mean", "—" if mean is None else f"{mean:.1f}"),
                ("median", "中位数 / median", "—" if median is None else _num(median)),
                ("full-marks", "满分 / full marks", _num(data.max_total)),
            ]
        )
    )
    if not totals:
        section.blocks.append(Para("没有已评分的学生 / no student has been graded"))
        return section
    histogram = bins(totals, data.max_total)
    caption = "总分分布（已评分的学生；虚线：平均分，点线：中位数） / Totals of the graded students (dashed: mean, dotted: median)"
    counts = Table(["总分 / total", "人数 / students"], [[_bin_label(lo, hi), str(n)] for lo, hi, n in histogram], numeric=(1,))
    svg = _draw(data, "totals", histogram, mean, median) if histogram else None
    section.blocks += [Figure(svg, caption, "histogram of totals", counts)] if svg else [Para(caption), counts]
    return section


def _mistakes(data) -> Section:
    section = Section("mistakes", "全班的错误 / The class's mistakes")
    if not data.diagnoses:
        section.blocks.append(Para("检查没有认出任何常见错误 / the checks recognised no known mistake"))
        return section
    section.blocks.append(
        Para(
            "检查认出的常见错误：答案正是这个错误会算出的结果。点学生的名字看他们的反馈。 / "
            "Known mistakes the checks recognised: the answer was what the mistake computes. A student's name links to their feedback."
        )
    )
    by_id = {s.id: s for s in data.students}
    rows = [[(d.zh, d.en) if d.zh != d.en else d.zh, d.exercise, str(len(d.students)), [_student(by_id[i]) for i in d.students]] for d in data.diagnoses]
    section.blocks.append(Table(["诊断 / found", "练习 / exercise", "人数 / students", "学生 / who"], rows, numeric=(2,), id="mistakes-table", nowrap=(1,), widths=("45%",)))
    return section


def _exercises(data) -> Section:
    section = Section("exercises", "各练习 / Per exercise")
    graded = data.graded
    rows = []
    for ex in data.exercises:
        most = data.maxima[ex]
        points = [s.points[ex] for s in graded]
        mean = f"{statistics.fmean(points):.1f} / {_num(most)}" if points else "—"
        full = sum(most > 0 and p >= most for p in points)
        untouched = sum(ex in s.not_started for s in graded)
        rows.append([_exercise_name(ex), mean, _share(full, len(graded)), _share(untouched, len(graded))])
    section.blocks.append(Table(["练习 / exercise", "平均 / mean", "满分 / full marks", "未开始 / not started"], rows, numeric=(1, 2, 3), id="exercises-table"))
    histograms = {ex: bins([s.points[ex] for s in graded], data.maxima[ex]) for ex in data.exercises if data.maxima[ex] > 0}
    svg = _draw(data, "exercises", histograms) if graded and histograms else None
    if svg:
        caption = "各练习得分分布（已评分的学生） / Points per exercise (graded students)"
        section.blocks.append(Figure(svg, caption, "histograms of points per exercise"))
    return section


def _draw(data, figure: str, *args) -> str | None:
    """SVG from ``class_figures``, or None where matplotlib is not installed:
    the report is still written, with the counts in place of the pictures."""
    from grader.teacher.report import class_figures

    try:
        return getattr(class_figures, figure)(*args)
    except ImportError as exc:
        note = f"没有图：matplotlib 无法导入 / no figures: matplotlib cannot be imported ({exc})"
        if note not in data.problems:
            data.problems.append(note)
        return None


def _checks(data) -> Section:
    section = Section("checks", "各项检查 / Per check")
    order = {ex: i for i, ex in enumerate(data.exercises)}
    # Among the students who started the exercise; a check none of them met goes last.
    ranked = sorted(enumerate(data.checks), key=lambda ic: (not ic[1].tried, ic[1].pass_rate, order[ic[1].exercise], ic[0]))

    def row(c) -> list:
        return [f"{_share(c.passed, c.tried)} ({c.passed}/{c.tried})", str(c.not_started), c.exercise, c.title, _num(c.points), "隐藏 / hidden" if c.hidden else "公开 / public"]

    everyone = [c for _, c in ranked if c.tried and c.passed == c.tried]
    section.blocks.append(
        Para(
            "最常失败的排在前面。通过率只算开始做这道练习的学生；没开始的（还是原样，或没交这个文件）单列，不算失败 / "
            "Most often failed first. A pass rate counts only the students who started the exercise; "
            "those who did not (still the stub, or no file for it) are counted apart, not as failing."
        )
    )
    head = ["通过 / passed", "未开始 / not started", "练习 / exercise", "检查 / check", "分值 / points", "类型 / kind"]
    failed = [row(c) for _, c in ranked if c not in everyone]
    section.blocks.append(Table(head, failed, numeric=(0, 1, 4), id="checks-table", nowrap=(2, 5)) if failed else Para("没有 / none"))
    if everyone:
        # Put away: a teacher looks for what failed, and most of the ~75 checks did not.
        summary = f"另有 {len(everyone)} 项检查，开始做的学生全部通过 / {len(everyone)} more checks that every student who started passed"
        section.blocks.append(Folded(summary, [Table(head, [row(c) for c in everyone], numeric=(0, 1, 4), id="checks-passed-table", nowrap=(2, 5))]))
    return section


def _to_help(data) -> Section:
    section = Section("help", "需要帮助的学生 / Students to help")
    half = data.max_total / 2
    started = sorted((s for s in data.graded if not s.started_nothing), key=lambda s: (s.total, s.id))
    lowest = [s for i, s in enumerate(started) if (i < LOWEST or s.total < half) and s.total < data.max_total]
    section.blocks.append(Heading(f"总分最低 / Lowest totals（至少 {LOWEST} 名，及所有低于满分一半的 / at least {LOWEST}, and everyone below half marks）"))
    if lowest:
        rows = [[_student(s), _num(s.total), ", ".join(ex for ex in data.exercises if s.points[ex] < data.maxima[ex] / 2), s.note] for s in lowest]
        section.blocks.append(Table(["学生 / student", "总分 / total", "低于一半的练习 / exercises below half", "备注 / note"], rows, numeric=(1,), id="lowest-table"))
    else:
        section.blocks.append(Para("没有 / none"))
    section.blocks.append(Heading("全未开始 / Started nothing（每道练习都还是原样 / every exercise untouched）"))
    nothing = [_student(s) for s in data.students if s.started_nothing]
    section.blocks.append(Table(["学生 / students"], [[nothing]], id="not-started-table") if nothing else Para("没有 / none"))
    section.blocks.append(Heading("未评分 / Not graded"))
    not_graded = [[_student(s), s.why_not_graded or s.note] for s in data.students if not s.graded]
    section.blocks.append(Table(["学生 / student", "原因 / reason"], not_graded, id="not-graded-table") if not_graded else Para("没有 / none"))
    return section


def _late(data) -> Section:
    """Who handed in late, by how much and what it cost (with a late policy)."""
    section = Section("late", "迟交 / Late work")
    late = sorted((s for s in data.students if s.late_days), key=lambda s: (-s.late_days, s.id))
    unknown = [s for s in data.students if s.late and not s.late.get("time_source")]
    if late:
        rows = [
            [
                _student(s),
                str(s.late_days),
                _when(s.late.get("submitted_at", "")) if s.late.get("submitted_at") else "— (只说迟交 / late, no time)",
                s.late.get("time_source", ""),
                s.late.get("raw", ""),
                s.late.get("penalty", ""),
                _num(s.total),
            ]
            for s in late
        ]
        head = ["学生 / student", "迟交天数 / days late", "提交时间 / handed in", "时间来源 / time from", "扣前 / raw", "扣分 / penalty", "总分 / total"]
        section.blocks.append(Table(head, rows, numeric=(1, 4, 5, 6), id="late-table", nowrap=(2,)))
    else:
        section.blocks.append(Para("没有人迟交 / no one handed in late"))
    if unknown:
        section.blocks.append(Para(f"没有提交时间、按按时计的学生 / students without a submission time, counted on time: {', '.join(s.id for s in unknown)}"))
    return section


def _all_students(data) -> Section:
    def status(s):
        if not s.graded:
            return "未评分 / not graded"
        if s.started_nothing:
            return "全未开始 / started nothing"
        return s.note

    head = ["学生 / student", *(ex.split("_")[0] for ex in data.exercises), "总分 / total", "备注 / note"]
    rows = [[_student(s), *(_num(s.points[ex]) for ex in data.exercises), _num(s.total), status(s)] for s in data.students]
    numeric = tuple(range(1, len(data.exercises) + 2))
    return Section("students", "全部学生 / All students", [Table(head, rows, numeric=numeric, id="students-table")])


def _similar(out: str, problems: list[str]) -> Section | None:
    """The "similar submissions" section, when ``grader similar`` has left its
    findings in OUT and its module can write them up."""
    path = os.path.join(out, SIMILAR)
    if not os.path.isfile(path):
        return None
    try:
        from grader.teacher.report import similar
    except ImportError:
        return None
    to_html, to_md = getattr(similar, "html_section", None), getattr(similar, "markdown_section", None)
    if not (callable(to_html) and callable(to_md)):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            found = json.load(f)
        # Its fragment brings its own heading.
        return Section("similar", "相似的提交 / Similar submissions", [Raw(to_html(found), to_md(found))], heading=False)
    except Exception as exc:  # noqa: BLE001 - the rest of the report is still worth writing
        problems.append(f"{SIMILAR}: 无法加入报告 / not in the report: {type(exc).__name__}: {exc}")
        return None


# ------------------------------------------------------------------ HTML


CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC",
       "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif; font-size: 14px; line-height: 1.45;
       color: #1d1d1f; margin: 0 auto; padding: 1.5rem; max-width: 60rem; }
h1 { font-size: 1.6rem; margin: 0 0 .2rem; }
h2 { font-size: 1.25rem; margin: 1.8rem 0 .6rem; padding-bottom: .2rem; border-bottom: 2px solid #4C72B0; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
.sub { color: #555; margin: 0 0 1rem; }
nav { font-size: .9rem; margin-bottom: 1rem; }
nav a { margin-right: .8rem; }
a { color: #2255aa; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(7rem, 1fr)); gap: .5rem; margin: 0 0 1rem; }
.stats div { border: 1px solid #d8dce3; border-radius: 6px; padding: .4rem .6rem; background: #f6f8fb; }
.stats dt { font-size: .8rem; color: #555; }
.stats dd { margin: 0; font-size: 1.4rem; font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #d8dce3; padding: .25rem .45rem; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #eef1f6; }
td.n, th.n { text-align: right; white-space: nowrap; }
td.code, th.code { white-space: nowrap; }
details { margin: 0 0 1rem; }
summary { cursor: pointer; color: #2255aa; }
tbody tr:nth-child(even) { background: #fafbfc; }
figure { margin: .6rem 0 1rem; }
figure img { width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { padding: 0; max-width: none; font-size: 10pt; }
  nav { display: none; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  tr, figure, .stats div { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
}
"""


def _href(path: str) -> str:
    return html_text(urllib.parse.quote(path))


def _html_cell(cell) -> str:
    if isinstance(cell, Link):
        return f'<a href="{_href(cell.href)}">{html_text(cell.text)}</a>'
    if isinstance(cell, tuple):
        return "<br>".join(html_text(line) for line in cell)
    if isinstance(cell, list):
        return ", ".join(_html_cell(c) for c in cell)
    return html_text(cell)


def _html_block(b) -> str:
    if isinstance(b, Para):
        return f"<p>{html_text(b.text)}</p>"
    if isinstance(b, Heading):
        return f"<h3>{html_text(b.text)}</h3>"
    if isinstance(b, Stats):
        items = "".join(f'<div><dt>{html_text(label)}</dt><dd id="stat-{key}">{html_text(value)}</dd></div>' for key, label, value in b.items)
        return f'<dl class="stats">{items}</dl>'
    if isinstance(b, Figure):
        uri = "data:image/svg+xml;base64," + base64.b64encode(b.svg.encode("utf-8")).decode("ascii")
        return f'<figure><img src="{uri}" alt="{html_text(b.alt)}"><figcaption>{html_text(b.caption)}</figcaption></figure>'
    if isinstance(b, Raw):
        return b.html
    if isinstance(b, Folded):
        return f"<details><summary>{html_text(b.summary)}</summary>" + "".join(_html_block(inner) for inner in b.blocks) + "</details>"
    if isinstance(b, Table):

        def cls(i):
            return ' class="n"' if i in b.numeric else ' class="code"' if i in b.nowrap else ""

        head = "".join(f"<th{cls(i)}>{html_text(h)}</th>" for i, h in enumerate(b.head))
        rows = "".join("<tr>" + "".join(f"<td{cls(i)}>{_html_cell(c)}</td>" for i, c in enumerate(row)) + "</tr>" for row in b.rows)
        table_id = f' id="{html_text(b.id)}"' if b.id else ""
        cols = "".join(f'<col style="width: {w}">' for w in b.widths)
        cols = f"<colgroup>{cols}</colgroup>" if cols else ""
        return f"<table{table_id}>{cols}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    raise TypeError(type(b))


def render_html(data, parts: list[Section]) -> str:
    nav = "".join(f'<a href="#{s.id}">{html_text(s.title)}</a>' for s in parts)
    body = "".join(f'<section id="{s.id}">' + (f"<h2>{html_text(s.title)}</h2>" if s.heading else "") + "".join(_html_block(b) for b in s.blocks) + "</section>" for s in parts)
    return (
        '<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>班级报告 / Class report: {html_text(_name(data))}</title><style>{CSS}</style></head><body>"
        f'<header><h1>班级报告 / Class report</h1><p class="sub">{html_text(_subtitle(data))}</p></header>'
        f"<nav>{nav}</nav>{body}</body></html>\n"
    )


def _name(data) -> str:
    return os.path.basename(os.path.abspath(data.out))  # never the whole path: the report travels


def _subtitle(data) -> str:
    return f"{_name(data)} · {len(data.students)} 名学生 / students · 满分 / full marks {_num(data.max_total)}"


# -------------------------------------------------------------- Markdown


def _md_cell(cell) -> str:
    if isinstance(cell, Link):
        return f"[{markdown_text(cell.text)}]({urllib.parse.quote(cell.href)})"
    if isinstance(cell, tuple):
        return "<br>".join(markdown_text(line) for line in cell)
    if isinstance(cell, list):
        return ", ".join(_md_cell(c) for c in cell)
    return markdown_text(cell)


def _md_block(b) -> list[str]:
    if isinstance(b, Para):
        return [markdown_text(b.text), ""]
    if isinstance(b, Heading):
        return [f"### {markdown_text(b.text)}", ""]
    if isinstance(b, Stats):
        return ["| | |", "|---|---:|", *(f"| {markdown_text(label)} | {markdown_text(value)} |" for _, label, value in b.items), ""]
    if isinstance(b, Figure):
        note = [f"*{markdown_text(b.caption)}: 图见 {HTML_NAME} / the figure is in {HTML_NAME}*", ""]
        return note + (_md_block(b.counts) if b.counts else [])
    if isinstance(b, Raw):
        return [b.md.rstrip("\n"), ""]
    if isinstance(b, Folded):
        inner = [line for block in b.blocks for line in _md_block(block)]
        return [f"<details><summary>{html_text(b.summary)}</summary>", "", *inner, "</details>", ""]
    if isinstance(b, Table):
        rule = "|" + "|".join("---:" if i in b.numeric else "---" for i in range(len(b.head))) + "|"
        rows = ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
        return ["| " + " | ".join(markdown_text(h) for h in b.head) + " |", rule, *rows, ""]
    raise TypeError(type(b))


def render_markdown(data, parts: list[Section]) -> str:
    lines = ["# 班级报告 / Class report", "", markdown_text(_subtitle(data)), ""]
    for s in parts:
        lines += [f"## {markdown_text(s.title)}", ""] if s.heading else []
        for b in s.blocks:
            lines += _md_block(b)
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------- entry


def write(out_dir: str) -> tuple[str, str]:
    """Write OUT/report.html and OUT/report.md (each atomically) from what
    the batch left in ``out_dir``; returns their paths. Raises
    ``class_data.NotBatchOutput`` when ``out_dir`` has no grades.csv."""
    data = class_data.read(out_dir)
    parts = sections(data, _similar(out_dir, data.problems))
    html_path, md_path = os.path.join(out_dir, HTML_NAME), os.path.join(out_dir, MD_NAME)
    write_atomically(html_path, render_html(data, parts))
    write_atomically(md_path, render_markdown(data, parts))
    return html_path, md_path


@dataclass(frozen=True)
class ReportOptions(CommandOptions):
    """What ``python -m grader report`` is asked to do."""

    out: str  # the folder `batch --out` wrote (with grades.csv)

    def __post_init__(self) -> None:
        self._check_paths("out")


def _usage(message: str) -> int:
    print(f"python -m grader report: 错误 / error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    """``python -m grader report OUT``: argparse's namespace made a ``ReportOptions`` once, and the report rebuilt."""
    try:
        options = ReportOptions.from_namespace(args)
    except OptionError as exc:
        return _usage(str(exc))
    return rebuild(options)


def rebuild(options: ReportOptions) -> int:
    """Rebuild the report in ``options.out``; the exit code (2: not a batch's output)."""
    try:
        html_path, md_path = write(options.out)
    except class_data.NotBatchOutput:
        return _usage(f"{options.out} 不是批量评分的输出文件夹（没有 grades.csv） / is not the output of `python -m grader batch` (no grades.csv)")
    print(f"班级报告 / class report: {html_path}, {md_path}")
    return 0
