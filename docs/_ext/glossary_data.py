"""The glossary: one data file (``docs/glossary.csv``) makes the page, the
cross-references and the search dictionary.

- ``{glossary-entries}`` expands to a Sphinx glossary with both the Chinese
  and the English term of every row as link targets;
- ``{gls}`因果掩码``` links a term to it. In Chinese text the first use on a
  page also shows the English term: 因果掩码（causal mask）;
- the Chinese terms are added to the search's word list (jieba), so that
  searching 掩码 finds the pages about masking.
"""

import csv
import functools
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.domains.std import Glossary
from sphinx.util import logging

logger = logging.getLogger(__name__)
FILE = "glossary.csv"


def load(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@functools.lru_cache
def _load_cached(path: str, mtime: float) -> list[dict]:
    return load(path)


def _entries(env) -> list[dict]:
    path = Path(env.srcdir) / FILE
    return _load_cached(str(path), path.stat().st_mtime)


class GlossaryEntries(Glossary):
    """The glossary directive, its content generated from glossary.csv."""

    has_content = False

    def run(self):
        path = str(Path(self.env.srcdir) / FILE)
        self.env.note_dependency(path)
        lines = StringList()
        for i, row in enumerate(_entries(self.env), start=2):
            for line in (
                row["zh"],
                row["en"],
                "   :::{zh}",
                "   " + row["zh_definition"],
                "   :::",
                "   :::{en}",
                "   " + row["en_definition"],
                "   :::",
                "",
            ):
                lines.append(line, path, i)
        self.content = lines
        return super().run()


def gls_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    term = text.strip()
    row = next((r for r in _entries(env) if term == r["zh"] or term.lower() == r["en"].lower()), None)
    if row is None:
        msg = inliner.reporter.warning(f"{{gls}}: {term!r} is not in {FILE}", line=lineno)
        return [nodes.Text(term)], [msg]
    shown = term
    if term == row["zh"]:
        seen = env.temp_data.setdefault("glossary_seen", set())
        if term not in seen:
            seen.add(term)
            shown = f"{term}（{row['en']}）"
    ref = addnodes.pending_xref(rawtext, refdomain="std", reftype="term", reftarget=(row["zh"] if term == row["zh"] else row["en"]).lower(), refexplicit=True, refwarn=True)
    ref += nodes.inline(shown, shown, classes=["xref", "std", "std-term"])
    return [ref], []


def search_dictionary(app, config):
    """A jieba user dictionary with every Chinese term, for the search index."""
    rows = load(Path(app.srcdir) / FILE)
    path = Path(app.doctreedir) / "jieba-glossary.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    words = {r["zh"].replace(" ", "") for r in rows}
    path.write_text("".join(f"{w} 100000\n" for w in sorted(words)), encoding="utf-8")
    config.html_search_options = {**(config.html_search_options or {}), "dict": str(path)}


def setup(app):
    app.add_directive("glossary-entries", GlossaryEntries)
    app.add_role("gls", gls_role)
    app.connect("config-inited", search_dictionary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
