"""Grading from inside a Jupyter notebook: ``check("<id>")`` and ``check_all()``.

    from grader.notebook import check
    check("ex0_weighted_sum")

``check`` grades the *saved* notebook ``<id>.ipynb`` of the kernel's folder
(its answer cells, grader/handin/notebook_source.py) as ``python -m grader grade --only
<id>`` does, in the warm grader (``grader.student.warm_grader``): a grading process
of its own, started when a kernel imports this module and kept between calls,
so a check answers in a fraction of a second; the same sandboxed child and
the same report as ``tox -e grade``. Nothing of the kernel is used: what a
cell defined, patched, imported or set in the environment cannot change the
score. The report is
shown as HTML in the notebook (the table, then each failed check's
feedback, diagnoses included, in Chinese and English); ``.text`` is the
terminal's report and ``.results`` the results.json.

Jupyter saves a notebook when told to (Ctrl-S) and every two minutes: when
the answer code the kernel last ran is not what the saved file holds, the
report says to save first.

In an nbgrader assignment (``python -m grader nbgrader``), each notebook's
autograder test cell ends with ``points("<id>", hidden=...)``: the same
grading, printed as text, with the points earned as the cell's value, which
nbgrader reads as partial credit. See ``points``.

Importing this module also lets an answer cell import an earlier exercise
from its notebook beside it (``from ex5_head import Head`` finds
``ex5_head.ipynb``'s answer cells when there is no ``ex5_head.py``), so
that the notebooks run in the kernel as the .py files do.
"""

import dataclasses
import html
import importlib.abc
import importlib.util
import json
import os
import sys
import textwrap

from grader.exercises import BY_ID, IDS
from grader.student import warm_grader
from grader.student.request import GradeRequest


class Report:
    """A grading's report; Jupyter shows it as HTML."""

    def __init__(self, results: dict, text: str, warnings: list[str]):
        self.results, self.text, self.warnings = results, text, warnings

    @property
    def score(self) -> float:
        return self.results.get("score", 0)

    def __repr__(self) -> str:
        return "\n".join(self.warnings + [self.text])

    def _repr_html_(self) -> str:
        return to_html(self.results, self.text, self.warnings)


def check(exercise_id: str, folder: str | None = None) -> Report:
    """Grade the saved notebook ``<exercise_id>.ipynb`` in ``folder`` (the kernel's own by default)."""
    return _check(exercise_id, folder, public_only=False)


def _check(exercise_id: str, folder: str | None, public_only: bool) -> Report:
    if exercise_id not in BY_ID:
        raise ValueError(f"没有这道练习：{exercise_id!r}；可选 / no such exercise; one of: {', '.join(IDS)}")
    folder = os.path.abspath(folder or os.getcwd())
    path = os.path.join(folder, BY_ID[exercise_id].notebook)
    if not os.path.exists(path):
        return _no_notebook(exercise_id, folder)
    return _grade(GradeRequest(folder, only=exercise_id, public_only=public_only), _unsaved(path, exercise_id))


def _no_notebook(exercise_id: str, folder: str) -> Report:
    """What check() says where the notebook is not: what to do, not a traceback."""
    name = BY_ID[exercise_id].notebook
    text = (
        f"这个文件夹里没有 {name}：{folder}\n"
        f"check() 评的是保存好的笔记本，它要和运行 check() 的笔记本在同一个文件夹里（或者用 check({exercise_id!r}, folder=...) 指明）。\n"
        f"用 pip 装的评分程序：在终端里运行 attention-grader start 某个文件夹，再打开那里 notebooks/ 下的笔记本。\n"
        f"There is no {name} in this folder: {folder}\n"
        f"check() grades the saved notebook, which must be in the folder of the notebook that runs check() (or name it: check({exercise_id!r}, folder=...)).\n"
        f"With the grader installed by pip: run `attention-grader start SOME_FOLDER` in a terminal, then open the notebooks in its notebooks/.\n"
    )
    return Report({}, "", [text.rstrip()])


def check_all(folder: str | None = None) -> Report:
    """Grade every exercise of ``folder`` (the kernel's own by default), notebooks and .py files alike."""
    folder = os.path.abspath(folder or os.getcwd())
    warnings = []
    for ex in IDS:
        path = os.path.join(folder, BY_ID[ex].notebook)
        if os.path.exists(path):
            warnings += _unsaved(path, ex)
    return _grade(GradeRequest(folder), warnings)


# Said by a test cell that nbgrader autograde ran in a kernel: the points
# come from grader.teacher.platforms.nbgrader_autograde, which grades outside any kernel.
NOT_IN_A_KERNEL = (
    "自动评分不在内核里进行：分数由 nbgrader_config.py 里的 grader.teacher.platforms.nbgrader_autograde.GradeInSandbox 给出；"
    "没有它，这个单元格得 0 分。\n"
    "Autograding does not happen in a kernel: the points come from grader.teacher.platforms.nbgrader_autograde.GradeInSandbox, "
    "set in nbgrader_config.py; without it this cell scores 0."
)


def points(exercise_id: str, hidden: bool = False, folder: str | None = None) -> float | None:
    """An nbgrader autograder test cell: grade the saved ``<exercise_id>.ipynb``
    in ``folder`` (the kernel's own by default), print the report, and return
    the points earned, which nbgrader takes as the cell's partial credit.

    ``hidden=False`` (a student's Validate, or running the cell) grades with
    the public checks only. When they all pass the cell has no value, which
    nbgrader's Validate reads as passed (the points it could not grade here
    are the teacher's hidden checks'); otherwise it ends with the public
    points earned, which Validate reads as failed. ``hidden=True`` (the
    teacher's source notebook) grades with every check. nbgrader's Validate
    shows a failed test cell's stderr and not what it printed: there the
    failed checks are written to stderr too (``failed_checks``).

    Under ``nbgrader autograde`` a cell never grades in the kernel, where the
    answer cell's code has run: ``grader.teacher.platforms.nbgrader_autograde`` grades
    the notebook in the sandbox and writes this cell's output itself. Should
    that step be missing from the course's configuration, the cell says so
    and scores 0 rather than anything a kernel could be made to return."""
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        print(NOT_IN_A_KERNEL)
        return 0.0
    report = check(exercise_id, folder) if hidden else _check(exercise_id, folder, public_only=True)
    print(repr(report))
    tests = [t for t in report.results.get("tests", []) if t["tags"][0] == exercise_id]
    earned = float(sum(t["score"] for t in tests))
    if not hidden and tests and all(t["status"] == "passed" for t in tests):
        return None
    if os.environ.get("NBGRADER_EXECUTION") == "validate" and (not tests or any(t["status"] != "passed" for t in tests)):
        print(failed_checks(tests, report.warnings), file=sys.stderr)
    return earned


def failed_checks(tests: list, warnings: tuple[str, ...] | list[str] = ()) -> str:
    """The checks not passed, by name and points, then the known mistakes
    they found, each once: what nbgrader's Validate shows of a failed test
    cell in place of its "Partial credit; passed some but not all of the tests"."""
    from grader.text import DIAGNOSIS_LABEL

    # nbgrader cuts long lines short: each language on lines of its own,
    # wrapped by textwrap (the report's own wrapping is the engine's, which a
    # kernel never imports: tests/support/import_rules.py).
    failed = [t for t in tests if t["status"] != "passed"]
    lines = list(warnings) + ["未通过的检查 / checks not passed:"]
    for t in failed:
        lines.append(f"✗ {t['name'].split(': ', 1)[-1]}  ({t['score']:g}/{t['max_score']:g})")
    found = [(t.get("extra_data") or {}).get("diagnosis") for t in failed]
    hang = " " * len(DIAGNOSIS_LABEL)
    for zh, en in dict.fromkeys((d["zh"], d["en"]) for d in found if d):
        lines.append(f"{DIAGNOSIS_LABEL}{zh}")
        lines += textwrap.wrap(en, 78, initial_indent=hang, subsequent_indent=hang)
    lines.append("完整的报告：在笔记本里运行这个单元格 / the whole report: run this cell in the notebook")
    return "\n".join(lines)


def _grade(request: GradeRequest, warnings: list[str]) -> Report:
    request = dataclasses.replace(request, display_name=os.path.basename(request.path))
    graded = warm_grader.shared().grade(request)
    text, said = graded.report, graded.notes
    if not graded.results:
        warnings = warnings + [f"评分没有完成 / grading did not finish (exit status {graded.code}):\n{said[-2000:]}"]
        return Report({"score": 0, "tests": []}, text, warnings)
    if said.strip():
        text = said.strip() + "\n" + text  # the grader's own notes (a missing sandbox, a replaced grader)
    return Report(graded.results, text, warnings)


def _unsaved(path: str, exercise_id: str) -> list[str]:
    """A warning when the kernel last ran answer code that the saved notebook does not hold."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    inputs = shell.user_ns.get("In", []) if shell is not None else []
    names = BY_ID[exercise_id].defines
    ran = next((text for text in reversed(inputs) if any(f"def {n}(" in text or f"class {n}" in text for n in names)), None)
    if ran is None:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            cells = json.load(f).get("cells", [])
        saved = {"".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells if c.get("cell_type") == "code"}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    if ran.strip() in {s.strip() for s in saved}:
        return []
    name = os.path.basename(path)
    return [
        f"{name} 保存的答案和你最后运行的不一样：评的是保存的文件。先保存（Ctrl-S）再运行 check。\n"
        f"{name} as saved differs from the answer you ran last: the saved file is graded. Save (Ctrl-S), then run check again."
    ]


# - the report as HTML -

_STYLE = (
    "<style>.attention-report table{border-collapse:collapse}"
    ".attention-report td,.attention-report th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}"
    ".attention-report .ok{color:#1a7f37}.attention-report .no{color:#cf222e}"
    ".attention-report pre{white-space:pre-wrap;background:#f6f8fa;padding:6px}"
    ".attention-report .warn{background:#fff8c5;padding:6px}</style>"
)


def to_html(results: dict, text: str, warnings: list[str] | None = None) -> str:
    """The report of ``results`` (results.json) as HTML: everything the
    student wrote or printed is escaped, so their output shows as text."""
    esc = html.escape
    tests = results.get("tests", [])
    rows: dict = {}
    failed: dict = {}
    for t in tests:
        ex = t["tags"][0]
        got, most, passed = rows.get(ex, (0, 0, 0))
        rows[ex] = (got + t["score"], most + t["max_score"], passed + (t["status"] == "passed"))
        if t["status"] != "passed":
            failed.setdefault(ex, []).append(t)
    count = {ex: sum(1 for t in tests if t["tags"][0] == ex) for ex in rows}
    out = ['<div class="attention-report">', _STYLE]
    out += [f'<p class="warn">{esc(w)}</p>'.replace("\n", "<br>") for w in warnings or []]
    if not tests and warnings:  # nothing was graded, and the warnings say why
        return "\n".join(out + ["</div>"])
    out.append("<table><tr><th>练习 / exercise</th><th>得分 / points</th><th>通过 / passed</th></tr>")
    for ex, (got, most, passed) in rows.items():
        mark = '<span class="ok">✓</span>' if passed == count[ex] else '<span class="no">✗</span>'
        e = BY_ID[ex]
        out.append(f"<tr><td>{mark} {esc(ex)} {esc(e.zh)} {esc(e.en)}</td><td>{_num(got)} / {_num(most)}</td><td>{passed} / {count[ex]}</td></tr>")
    total = sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values())
    out.append(f"<tr><th>总分 / total</th><th>{_num(total[0])} / {_num(total[1])}</th><th></th></tr></table>")
    said = results.get("output")  # notes on how the files were read (already escaped for HTML)
    if said:
        out.append(f"<pre>{said}</pre>")
    for ex, ts in failed.items():
        out.append(f"<h4>{esc(ex)} {esc(BY_ID[ex].zh)} / {esc(BY_ID[ex].en)}</h4>")
        for t in ts:
            name = t["name"].split(": ", 1)[-1]
            out.append(f'<p><span class="no">✗</span> {esc(name)} ({_num(t["score"])}/{_num(t["max_score"])})</p><pre>{esc(t["output"])}</pre>')
    if "(+" in text:  # points the teacher's hidden checks give, as the terminal says them
        out += [f"<p>{esc(line)}</p>" for line in text.splitlines() if line.startswith("(+n)")]
    out.append("</div>")
    return "\n".join(out)


def _num(x: float) -> str:
    return f"{x:g}"


# - earlier exercises' notebooks, importable in the kernel -


class _NotebookFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``exN_...`` as the answer cells of ``exN_....ipynb`` in the
    kernel's folder, when no ``.py`` of that name is importable."""

    def find_spec(self, name, path=None, target=None):
        if name not in BY_ID or path is not None:
            return None
        notebook = os.path.join(os.getcwd(), BY_ID[name].notebook)
        if not os.path.exists(notebook):
            return None
        # Last on sys.meta_path: asked only when no .py of that name was found.
        return importlib.util.spec_from_loader(name, self, origin=notebook)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        from grader.handin import notebook_source

        with open(module.__spec__.origin, "rb") as f:
            code = notebook_source.read(f.read(), module.__spec__.origin, module.__name__)
        module.__file__ = module.__spec__.origin
        exec(compile(code.source, module.__file__, "exec"), module.__dict__)


if not any(isinstance(f, _NotebookFinder) for f in sys.meta_path):
    sys.meta_path.append(_NotebookFinder())


# In a kernel, the warm grader starts now, while the student reads the
# notebook: the first check() finds torch imported already.
if "ipykernel" in sys.modules:
    warm_grader.shared().start()
