"""The catalogue's mistakes for one exercise, with the checks that catch each.

``{mistake-table} ex4_masking`` is a table with a row per file
``tests/catalogue/wrong/ex4_masking__<mistake>.py``, found by grading it with
the teacher's checks (``grader_output.py``'s grading script with
``--all-checks``, which grades only the replaced exercise):

- the mistake: the file's name and its docstring, in English (the first line)
  and in Chinese (the line ``zh: ...`` under it);
- the points it loses: the exercise's points less what the file scores;
- the checks it fails, public first, then hidden ones marked so ("all N
  checks" where it fails every one);
- what the grader names: the mistake the diagnoses (``诊断 / found`` in
  the feedback) of those checks name, one per file as the class report
  counts it (``class_data.one_mistake``), read from each check's
  ``extra_data`` in the results.json (``class_data.check_data``), or a
  dash where the feedback only says what differs.

tests/grading/test_catalogue.py holds every catalogue file to losing points, so every
row names at least one check.

``{uncaught-table}`` lists ``tests/catalogue/uncaught/``: mistakes that no
check catches. Each file there must score full marks with the teacher's
checks (tests/docs/test_mistake_table.py holds them to it, and so does the build):
one that starts losing points belongs in wrong/.

A catalogue file without its Chinese line fails the build (a warning, and the
build runs with -W). The page is in the teacher edition only; all the
catalogue files are graded in one run of that script, the first time a table
is needed.
"""

import ast
import html
import re
from pathlib import Path

import grader_output
from bilingual import lang_block, lang_inline
from check_list import _name as check_name
from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from grader.exercises import BY_ID, IDS
from grader.teacher.report.class_data import check_data, one_mistake

logger = logging.getLogger(__name__)

WRONG = grader_output.WRONG
UNCAUGHT = grader_output.UNCAUGHT
ZH_PREFIX = "zh: "
_CJK = re.compile("[\u3400-\u9fff]")


class NoChinese(ValueError):
    """A catalogue file's docstring has no ``zh: ...`` line."""


def stems(exercise: str | None = None, folder: Path = WRONG) -> list[str]:
    """The catalogue's mistakes (file stems) in ``folder``, of one exercise or of all."""
    return sorted(p.stem for p in folder.glob("*.py") if exercise is None or p.stem.split("__")[0] == exercise)


def describe(path: Path) -> tuple[str, str]:
    """(English, Chinese) of a catalogue file: its docstring's first line,
    without its "ex4 mistake: " prefix, and the line ``zh: ...`` under it.
    NoChinese if that line is missing, empty or not Chinese."""
    doc = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip()
    lines = [line.strip() for line in doc.splitlines()]
    first = lines[0] if lines else path.stem
    head, sep, rest = first.partition(" mistake: ")
    en = rest if sep and " " not in head else first
    zh = [line[len(ZH_PREFIX) :].strip() for line in lines[1:] if line.startswith(ZH_PREFIX)]
    if len(zh) != 1 or not _CJK.search(zh[0]):
        raise NoChinese(f"{path.name}: the docstring needs one line {ZH_PREFIX!r} under the English, saying the same in Chinese")
    return en, zh[0]


def mistake(stem: str) -> str:
    """The English description of a wrong file (see ``describe``)."""
    return describe(WRONG / f"{stem}.py")[0]


_graded: dict[str, dict] = {}  # stem -> that catalogue file graded with every check


def graded() -> dict:
    """Every catalogue file, wrong and uncaught, graded with the teacher's checks (once per build)."""
    missing = [s for s in stems() + stems(folder=UNCAUGHT) if s not in _graded]
    if missing:
        try:
            _graded.update(grader_output.graded_samples(missing, ("--all-checks",)))
        except RuntimeError as e:
            raise RuntimeError(f"grading the catalogue failed: {e}") from None
    return _graded


def _failed(sample: dict) -> list[dict]:
    """The checks a graded sample failed, public ones first."""
    failed = [t for t in sample["json"]["tests"] if t["status"] == "failed"]
    return sorted(failed, key=lambda t: t["tags"][1] == "hidden")


def catching_checks(sample: dict) -> list[tuple[str, bool]]:
    """(check, hidden) for every check a graded sample failed, public ones first."""
    return [(t["tags"][2], t["tags"][1] == "hidden") for t in _failed(sample)]


def points_lost(sample: dict) -> float:
    """The exercise's points less what the sample scored (it is graded on its exercise alone)."""
    return sample["max_score"] - sample["score"]


def diagnoses(sample: dict) -> list[tuple[str, str]]:
    """(Chinese, English) of the mistake the grader names for the file, as
    the class report names it (``class_data.one_mistake``: the one most of
    its failing checks name); none where no check names one."""
    named = [data.diagnosis for t in _failed(sample) if (data := check_data(t)) and data.diagnosis]
    return [one_mistake(named)] if named else []


def _num(x: float) -> str:
    return f"{x:g}"


def _both(zh: str, en: str) -> list[nodes.Node]:
    return [lang_inline(zh, zh, lang="zh"), lang_inline(en, en, lang="en")]


_LONG = re.compile(r"[^\s\u3400-\u9fff\u3000-\u303f\uff00-\uffef]{20,}")  # code in a sentence: no space to break at


def _breakable(text: str) -> nodes.Node:
    """Text whose long stretches of code may break after "_", ".", "(" or ","
    (<wbr>): position_embedding_table(torch.arange(T)) would widen its column
    past the page."""
    if not _LONG.search(text):
        return nodes.Text(text)
    parts, end = [], 0
    for m in _LONG.finditer(text):
        parts += [html.escape(text[end : m.start()]), re.sub(r"([_.(,])", r"\1<wbr>", html.escape(m.group()))]
        end = m.end()
    parts.append(html.escape(text[end:]))
    return nodes.raw(text, "".join(parts), format="html")


def _blocks(zh: str, en: str) -> list[nodes.Node]:
    """The two languages as two paragraphs, the site's bilingual blocks."""
    out = []
    for lang, text in (("zh", zh), ("en", en)):
        block = lang_block(lang=lang)
        block += nodes.paragraph("", "", _breakable(text))
        out.append(block)
    return out


def _named(name: str, zh: str, en: str) -> list[nodes.Node]:
    """A mistake's cell: its name, then what it is in each language. The name
    may break after each "_" (<wbr>): mask_filled_with_zero_own_ex3_a_stub is
    wider than its column."""
    parts = "_<wbr>".join(html.escape(part) for part in name.split("_"))
    code = nodes.raw(name, f'<code class="docutils literal notranslate mistake-name"><span class="pre">{parts}</span></code>', format="html")
    return [nodes.paragraph("", "", code), *_blocks(zh, en)]


def _row(cells: list[list[nodes.Node]]) -> nodes.row:
    """A row; a cell is a list of inline nodes (one paragraph) or of blocks."""
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        if content and all(isinstance(n, nodes.Element) and not isinstance(n, nodes.Inline) for n in content):
            entry.extend(content)
        else:
            entry += nodes.paragraph("", "", *content)
        row += entry
    return row


def _table(classes: list[str], title: list[nodes.Node], widths: tuple[int, ...], head: list[list[nodes.Node]]):
    """A table with its columns' widths in proportion to ``widths`` (docutils
    writes them out for a table of class colwidths-given)."""
    table = nodes.table(classes=[*classes, "colwidths-given"])
    table += nodes.title("", "", *title)
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    group += thead
    thead += _row(head)
    body = nodes.tbody()
    group += body
    return table, body


class _CatalogueDirective(SphinxDirective):
    def described(self, path: Path) -> tuple[str, str] | None:
        self.env.note_dependency(str(path))
        try:
            return describe(path)
        except NoChinese as e:
            logger.warning(str(e), location=self.get_location())
            return None

    def samples(self, what: str) -> dict:
        try:
            return graded()
        except Exception as e:  # noqa: BLE001 - said as the directive's error
            raise self.error(f"{{{what}}}: {e}") from e


class MistakeTable(_CatalogueDirective):
    required_arguments = 1

    def run(self):
        exercise = self.arguments[0]
        if exercise not in IDS:
            raise self.error(f"no exercise {exercise!r}")
        found = stems(exercise)
        if not found:
            raise self.error(f"the catalogue has no mistakes for {exercise}")
        for visibility in ("public", "hidden"):
            self.env.note_dependency(str(grader_output.ROOT / "checks" / visibility / f"test_{exercise}.py"))
        texts = {stem: self.described(WRONG / f"{stem}.py") for stem in found}
        samples = self.samples(f"mistake-table {exercise}")

        ex = BY_ID[exercise]
        table, body = _table(
            ["mistake-table"],
            [nodes.literal(exercise, exercise), nodes.Text(" "), *_both(ex.zh, ex.en)],
            (4, 1, 3, 4),
            [_both("错误", "mistake"), _both("丢的分", "points lost"), _both("抓住它的检查", "checks that catch it"), _both("评分程序说出的错误", "what the grader names")],
        )
        for stem in found:
            name = stem.split("__", 1)[1]
            sample = samples[stem]
            checks = catching_checks(sample)
            if not checks:
                raise self.error(f"{stem} fails no check: the catalogue holds every file to losing points")
            caught = []
            every = len(sample["json"]["tests"])  # the exercise's checks, public and hidden
            if len(checks) == every > 1:
                caught = _both(f"全部 {every} 项检查", f"all {every} checks")
            for i, (check, hidden) in enumerate(checks if not caught else []):
                caught += ([nodes.Text(", ")] if i else []) + [check_name(check)]
                if hidden:
                    caught += [nodes.Text(" ("), *_both("隐藏", "hidden"), nodes.Text(")")]
            en, zh = texts[stem] or (stem, stem)
            named = [block for zh_d, en_d in diagnoses(sample) for block in _blocks(zh_d, en_d)]
            body += _row(
                [
                    _named(name, zh, en),
                    [nodes.Text(_num(points_lost(sample)))],
                    caught,
                    named or [nodes.Text("—")],
                ]
            )
        return [table]


class UncaughtTable(_CatalogueDirective):
    """Every file of tests/catalogue/uncaught/: the mistakes no check catches."""

    def run(self):
        found = stems(folder=UNCAUGHT)
        if not found:
            raise self.error("tests/catalogue/uncaught/ holds no mistakes")
        texts = {stem: self.described(UNCAUGHT / f"{stem}.py") for stem in found}
        samples = self.samples("uncaught-table")
        table, body = _table(
            ["mistake-table", "uncaught-table"],
            _both("没有检查抓得住的错误", "mistakes no check catches"),
            (2, 6),
            [_both("练习", "exercise"), _both("错误", "mistake")],
        )
        for stem in found:
            exercise, name = stem.split("__", 1)
            sample = samples[stem]
            if points_lost(sample) or catching_checks(sample):
                logger.warning(
                    "tests/catalogue/uncaught/%s.py loses %s points (%s): a check catches it now, so it belongs in tests/catalogue/wrong/",
                    stem,
                    _num(points_lost(sample)),
                    ", ".join(c for c, _ in catching_checks(sample)),
                    location=self.get_location(),
                )
            en, zh = texts[stem] or (stem, stem)
            body += _row([[nodes.literal(exercise, exercise)], _named(name, zh, en)])
        return [table]


def setup(app):
    app.add_directive("mistake-table", MistakeTable)
    app.add_directive("uncaught-table", UncaughtTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
