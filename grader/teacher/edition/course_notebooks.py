"""The course's Jupyter notebooks, ``notebooks/<id>.ipynb``, the ones
students open and work in: written from each exercise's docs page, stub and
experiment, never by hand. (Reading a notebook a student hands in is
``grader/handin/notebook_source.py``; ``check()`` inside Jupyter is
``grader/notebook.py``.)

    python -m grader notebooks            # rewrite notebooks/ from the course
    python -m grader notebooks --check    # fail if notebooks/ is out of date

Each notebook holds, in order: the page's goal ("What this lesson does") and
key points in both languages, with a link to the page; a cell that imports
``grader.notebook``; the experiment as a cell; the stub in one code cell,
marked as the exercise's answer cell (``"exercise": "<id>"`` in its
metadata, which grader/handin/notebook_source.py reads); and a last cell,
``check("<id>")``, that grades it in a sandboxed child process, as ``tox -e
grade`` does: never in the kernel.

The page's MyST roles become their text (``{gls}`权重``` is 权重,
``{num}`0.845 <summary[0]>``` is 0.845: the docs build proves the number).
The link goes where the page is (``page_link``): in the course's own folder,
to its source beside notebooks/ (``../docs/path/<id>.md``, MyST; the cell says
``tox -e docs`` builds the site), which a clone has and JupyterLab opens; in
the student edition, which has no docs/, to the page on the site that
``release --docs-url`` names, or, without one, to nothing: the cell names the
page without a link. (nbgrader's course writer takes ``--docs-url`` too.)
"""

import json
import os
import re
import sys
from dataclasses import dataclass

from grader.exercises import BY_ID, IDS
from grader.files import PROJECT, write_atomically
from grader.teacher.options import CommandOptions, OptionError

NOTEBOOKS = "notebooks"
# The sections of a docs page the notebook quotes, by their headings.
GOAL = "## 这一课完成什么 · What this lesson does"
KEY_POINTS = "## 本篇要点 · Key points"
_ROLE = re.compile(r"\{[\w-]+\}`([^`]*)`")
_TARGET = re.compile(r"\s*<[^<>]*>$")  # "0.845 <summary[0]>": the text, then what it shows
_BLOCK = re.compile(r"^:::\{(zh|en)\}\n(.*?)^:::$", re.MULTILINE | re.DOTALL)
# What Jupyter writes for a Python 3 kernel: the notebook opens with one.
METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {"name": "python", "pygments_lexer": "ipython3"},
}


# nbgrader's default --docs-url: the site's folder, put beside the assignment's folder.
DOCS_URL = "docs/"
# A ``docs_url`` that means "no site to link": the student edition built without --docs-url.
NO_SITE = ""


def page_link(exercise_id: str, docs_url: str | None = None) -> str | None:
    """Where the exercise's page is: on the site at ``docs_url`` (a
    relative address is the site's folder beside notebooks/), its source
    beside notebooks/ (None: the course's own folder), or nowhere (``NO_SITE``)."""
    if docs_url is None:
        return f"../docs/path/{exercise_id}.md"
    if docs_url == NO_SITE:
        return None
    site = docs_url.rstrip("/")
    if "://" not in site:
        site = "../" + site
    return f"{site}/path/{exercise_id}.html"


def _page_line(exercise_id: str, docs_url: str | None) -> str:
    """The title cell's line about the page (see ``page_link``)."""
    link = page_link(exercise_id, docs_url)
    if link is None:
        return f"这一课的页面 / The page: {exercise_id}（在课程网站上，网址请问老师 / on the course's site: ask your teacher for its address）"
    if docs_url is None:
        return f"这一课的页面 / The page: [{exercise_id}]({link})（MyST 源文件；排好版的网站用 `tox -e docs` 生成 / its MyST source; `tox -e docs` builds the site）"
    return f"这一课的页面 / The page: [{exercise_id}]({link})"


def _plain(markdown: str) -> str:
    """MyST roles as their text: ``{gls}`X``` -> X, ``{num}`0.845 <expr>``` -> 0.845."""
    return _ROLE.sub(lambda m: _TARGET.sub("", m.group(1)), markdown).strip()


def _section(page: str, heading: str) -> dict[str, str]:
    """The zh and en blocks of the page's section under ``heading``."""
    start = page.index(heading + "\n")
    end = page.find("\n## ", start + len(heading))
    body = page[start : end if end != -1 else len(page)]
    return {lang: _plain(text) for lang, text in _BLOCK.findall(body)}


def _cell(kind: str, source: str, metadata: dict | None = None) -> dict:
    cell: dict = {"cell_type": kind, "id": "", "metadata": metadata or {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def make_notebook(exercise_id: str, project: str = PROJECT, docs_url: str | None = None) -> str:
    """The notebook of ``exercise_id``, as the text of an nbformat 4.5 file."""
    ex = BY_ID[exercise_id]
    with open(os.path.join(project, "docs", "path", exercise_id + ".md"), encoding="utf-8") as f:
        page = f.read()
    with open(os.path.join(project, "exercises", ex.filename), encoding="utf-8") as f:
        stub = f.read()
    with open(os.path.join(project, "experiments", f"{exercise_id}_experiment.py"), encoding="utf-8") as f:
        experiment = f.read()
    goal, points = _section(page, GOAL), _section(page, KEY_POINTS)
    names = ", ".join(f"`{name}`" for name in ex.defines)
    cells = [
        _cell(
            "markdown",
            f"# {exercise_id}：{ex.zh} · {ex.en}\n\n{_page_line(exercise_id, docs_url)}\n\n{goal['zh']}\n\n{goal['en']}\n",
        ),
        _cell("markdown", f"{KEY_POINTS}\n\n{points['zh']}\n\n{points['en']}\n"),
        _cell(
            "code",
            "# 评分用；也让答案单元格能 import 前面练习的笔记本 (from ex5_head import Head)\n"
            "# for grading; it also lets an answer cell import an earlier exercise's notebook\n"
            "from grader.notebook import check",
        ),
        _cell(
            "markdown",
            "## 动手试一试 · Try it yourself\n\n这个实验只用 torch，不用你的代码：改一个数，再运行一次。\n\nThe experiment uses plain torch, none of your code: change a number and run it again.\n",
        ),
        _cell("code", experiment.rstrip("\n")),
        _cell(
            "markdown",
            "## 你的任务 · Your task\n\n"
            f"在下面这个单元格里写 {names}：评分的只有这一个单元格（它的元数据标着 `exercise`）。\n\n"
            f"Write {names} in the cell below: it is the one cell that is graded (its metadata says `exercise`).\n",
        ),
        _cell("code", stub.rstrip("\n"), {"exercise": exercise_id}),
        _cell(
            "markdown",
            "## 评分 · Grading\n\n"
            "先保存（Ctrl-S），再运行下面的单元格。评分在另一个进程里进行，和 `tox -e grade` 一样；这个内核里的东西改变不了分数。\n\n"
            "Save first (Ctrl-S), then run the cell below. Grading happens in another process, as with `tox -e grade`: "
            "nothing in this kernel can change the score.\n",
        ),
        _cell("code", f'check("{exercise_id}")'),
    ]
    for i, cell in enumerate(cells):
        cell["id"] = f"{exercise_id.split('_')[0]}-{i}"  # stable, so a regenerated notebook is the same file
    notebook = {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"


def write_all(folder: str, project: str = PROJECT, docs_url: str | None = None) -> list[str]:
    """Write every exercise's notebook into ``folder``; the paths written."""
    paths = []
    for ex in IDS:
        path = os.path.join(folder, BY_ID[ex].notebook)
        write_atomically(path, make_notebook(ex, project, docs_url))
        paths.append(path)
    return paths


def stale(project: str = PROJECT) -> list[str]:
    """The notebooks of ``project``/notebooks that differ from what the course makes (or are missing)."""
    out = []
    for ex in IDS:
        path = os.path.join(project, NOTEBOOKS, BY_ID[ex].notebook)
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != make_notebook(ex, project):
            out.append(os.path.relpath(path, project))
    return out


@dataclass(frozen=True)
class NotebooksOptions(CommandOptions):
    """What ``python -m grader notebooks`` is asked to do."""

    check: bool = False  # only check that notebooks/ is up to date

    def __post_init__(self) -> None:
        self._check_flags("check")


def run(args) -> int:
    """``python -m grader notebooks``: argparse's namespace made a ``NotebooksOptions`` once, and the notebooks written or checked."""
    try:
        options = NotebooksOptions.from_namespace(args)
    except OptionError as exc:
        print(f"python -m grader notebooks: 错误 / error: {exc}", file=sys.stderr)
        return 2
    return write_or_check(options)


def write_or_check(options: NotebooksOptions) -> int:
    """Write notebooks/ from the course, or (``options.check``) only say
    which are out of date; the exit code (1: some are)."""
    if options.check:
        found = stale()
        if found:
            print("这些笔记本过时了，请运行 python -m grader notebooks / out of date, run python -m grader notebooks:", *found, sep="\n  ", file=sys.stderr)
            return 1
        print(f"{NOTEBOOKS}/ 是最新的 / is up to date")
        return 0
    for path in write_all(os.path.join(PROJECT, NOTEBOOKS)):
        print(os.path.relpath(path, PROJECT))
    return 0
