"""The checks of an exercise, read from the check files: name, points, what it tests.

``{check-list} public ex4_masking`` shows a table of the public checks;
``{check-list} hidden ex4_masking`` the hidden ones (used only on the
teacher-only pages). Nothing is typed by hand, so the docs cannot drift from
the checks. The headers, the total and each check's "中文 / English" line
become one phrase per language, so that the table follows the reader's
language choice like the text around it.
"""

import ast
import html
import re
from dataclasses import dataclass
from pathlib import Path

from bilingual import lang_inline
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "checks"


@dataclass(frozen=True)
class Check:
    name: str  # the test function, e.g. test_mask_of_ones
    points: float
    doc: str  # "中文 / English", the first line of the docstring


def _points(fn: ast.FunctionDef) -> float:
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "points":
            return float(ast.literal_eval(d.args[0]))
    raise ValueError(f"{fn.name} has no @pytest.mark.points")


def checks(visibility: str, exercise: str) -> list[Check]:
    path = CHECKS / visibility / f"test_{exercise}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = (ast.get_docstring(node) or node.name).strip().splitlines()[0]
            out.append(Check(node.name, _points(node), doc))
    return out


def points(visibility: str, exercise: str) -> float:
    return sum(c.points for c in checks(visibility, exercise))


def _num(x: float) -> str:
    return f"{x:g}"


_CJK = re.compile("[\u3400-\u9fff]")


def _both(zh: str, en: str) -> list[nodes.Node]:
    return [lang_inline(zh, zh, lang="zh"), lang_inline(en, en, lang="en")]


def _name(name: str) -> nodes.raw:
    """A check's name as inline code that may break after each "_" (<wbr>):
    on a phone test_weights_rows_and_future is wider than its column."""
    parts = (html.escape(part) for part in name.split("_"))
    return nodes.raw(name, f'<code class="docutils literal notranslate check-name"><span class="pre">{"_<wbr>".join(parts)}</span></code>', format="html")


def _bilingual(text: str) -> list[nodes.Node]:
    """A docstring line "中文 / English" as two phrases; a line in one language as it is."""
    zh, sep, en = text.partition(" / ")
    if sep and _CJK.search(zh) and not _CJK.search(en):
        return _both(zh, en)
    return [nodes.Text(text)]


class CheckList(SphinxDirective):
    required_arguments = 2

    def run(self):
        visibility, exercise = self.arguments
        if visibility not in ("public", "hidden"):
            raise self.error("the first argument is public or hidden")
        if visibility == "hidden" and not self.config.teacher_edition:
            raise self.error("hidden checks are listed only in the teacher edition")
        path = CHECKS / visibility / f"test_{exercise}.py"
        if not path.is_file():
            raise self.error(f"{path.relative_to(ROOT)} does not exist: no {visibility} checks for {exercise} yet")
        self.env.note_dependency(str(path))
        found = checks(visibility, exercise)
        table = nodes.table(classes=["check-list"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (3, 1, 6):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += self._row([_both("检查", "check"), _both("分数", "points"), _both("测试什么", "what it tests")])
        body = nodes.tbody()
        group += body
        for c in found:
            body += self._row([[_name(c.name)], [nodes.Text(_num(c.points))], _bilingual(c.doc)])
        total = _num(sum(c.points for c in found))
        body += self._row([_both("合计", "total"), [nodes.Text(total)], _both(f"{len(found)} 项检查", f"{len(found)} checks")])
        return [table]

    @staticmethod
    def _row(cells: list[list[nodes.Node]]) -> nodes.row:
        row = nodes.row()
        for content in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", *content)
            row += entry
        return row


def setup(app):
    app.add_directive("check-list", CheckList)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
