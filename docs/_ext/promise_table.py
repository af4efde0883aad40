"""Every hidden check with the promise it tests, read from the checks and ``checks/promises.py``.

``{promise-table} ex4_masking`` shows a table with a row per hidden check of
the exercise: its name and points, what it tests (the first line of its
docstring), the sentence of the exercise file's docstrings that promises it
(``checks/promises.py``, quoted in each language) and the public checks that
test the same rule in the student's own run. Nothing is typed into the page:
a check renamed or added without its entry fails ``tests/unit/test_promises.py``
and this directive. Teacher edition only (it names the hidden checks).
"""

import importlib.util
from pathlib import Path

import check_list
from bilingual import lang_inline
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
PROMISES = ROOT / "checks" / "promises.py"


def load_promises():
    """``checks/promises.py`` as a module (checks/ is no package)."""
    spec = importlib.util.spec_from_file_location("course_promises", PROMISES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code(text: str) -> nodes.literal:
    return nodes.literal(text, text)


class PromiseTable(SphinxDirective):
    required_arguments = 1

    def run(self):
        (exercise,) = self.arguments
        if not self.config.teacher_edition:
            raise self.error("hidden checks are listed only in the teacher edition")
        hidden = CHECKS_DIR / f"test_{exercise}.py"
        if not hidden.is_file():
            raise self.error(f"{hidden.relative_to(ROOT)} does not exist")
        self.env.note_dependency(str(hidden))
        self.env.note_dependency(str(PROMISES))
        entries = load_promises().HIDDEN.get(exercise, {})
        found = check_list.checks("hidden", exercise)
        missing = [c.name for c in found if c.name not in entries]
        stale = sorted(set(entries) - {c.name for c in found})
        if missing or stale:
            raise self.error(f"checks/promises.py and checks/hidden/test_{exercise}.py disagree: no entry for {missing}, no check for {stale}")

        table = nodes.table(classes=["check-list", "promise-table"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (3, 1, 8, 3):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += _row(
            [
                check_list._both("隐藏检查", "hidden check"),
                check_list._both("分值", "points"),
                check_list._both("测试什么；练习文件里的承诺", "what it tests; the promise in the exercise file"),
                check_list._both("教同一条规则的公开检查", "public checks of the same rule"),
            ]
        )
        body = nodes.tbody()
        group += body
        for c in found:
            entry = entries[c.name]
            said = check_list._bilingual(c.doc)
            for p in entry.promises:
                where = p.where or exercise
                said += [nodes.inline("", "", nodes.Text(" · "), _code(where), nodes.Text(": "))]
                if p.zh == p.en:
                    said.append(_code(p.zh))
                else:
                    said += [lang_inline(p.zh, "“" + p.zh + "”", lang="zh"), lang_inline(p.en, "“" + p.en + "”", lang="en")]
            public: list[nodes.Node] = []
            for i, name in enumerate(entry.public):
                if i:
                    public.append(nodes.Text(", "))
                public.append(check_list._name(name))
            if not public:
                public = check_list._both("（无）", "(none)")
            body += _row([[check_list._name(c.name)], [nodes.Text(check_list._num(c.points))], said, public])
        return [table]


CHECKS_DIR = ROOT / "checks" / "hidden"


def _row(cells: list[list[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


def setup(app):
    app.add_directive("promise-table", PromiseTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
