"""The exercises, listed from ``grader/exercises.py`` (the course's one table).

``{exercise-toctree}`` is a toctree of one page per exercise, in the table's
order, named by its id in the page's folder (``path/ex4_masking``,
``answers/ex4_masking``); it takes the toctree's options. A registered
exercise without its page fails the build like any missing page.

``{exercise-table}`` is the overview: each exercise's page (its title as the
link) with the points of its public and hidden checks, and the totals.

Nothing is typed by hand: adding a row to the table adds it here, and a test
holds the checks' markers to the table's points (tests/unit/test_exercises.py).
"""

from pathlib import Path

from bilingual import lang_inline
from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.directives.other import TocTree
from sphinx.util.docutils import SphinxDirective

from grader.exercises import EXERCISES, TOTAL

TABLE_FILE = Path(__file__).resolve().parents[2] / "grader" / "exercises.py"


class ExerciseTocTree(TocTree):
    has_content = False

    def run(self):
        self.env.note_dependency(str(TABLE_FILE))
        self.content = StringList([e.id for e in EXERCISES], source=str(TABLE_FILE))
        return super().run()


def _both(zh: str, en: str) -> list:
    """The two languages of a cell; the site's switch shows one or both."""
    return [lang_inline(zh, zh, lang="zh"), lang_inline(en, en, lang="en")]


class ExerciseTable(SphinxDirective):
    def run(self):
        self.env.note_dependency(str(TABLE_FILE))
        table = nodes.table(classes=["exercise-table"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (8, 1, 1, 1):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += _row([_both("练习", "exercise"), _both("公开", "public"), _both("隐藏", "hidden"), _both("合计", "total")])
        body = nodes.tbody()
        group += body
        for e in EXERCISES:
            link = addnodes.pending_xref("", nodes.literal(e.id, e.id), refdomain="std", reftype="doc", reftarget=e.id, refexplicit=False, refwarn=True, refdoc=self.env.docname)
            body += _row([[link], [nodes.Text(str(e.public))], [nodes.Text(str(e.hidden))], [nodes.Text(str(e.points))]])
        public, hidden = sum(e.public for e in EXERCISES), sum(e.hidden for e in EXERCISES)
        body += _row([_both("合计", "total"), [nodes.Text(str(public))], [nodes.Text(str(hidden))], [nodes.Text(str(TOTAL))]])
        return [table]


def _row(cells: list[list]) -> nodes.row:
    row = nodes.row()
    for children in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para.extend(children)
        entry += para
        row += entry
    return row


def setup(app):
    app.add_directive("exercise-toctree", ExerciseTocTree)
    app.add_directive("exercise-table", ExerciseTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
