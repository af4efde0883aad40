"""One escaper for what students chose (``grader.student.markup``): in Markdown its
specials stay text and no table cell ends early, in HTML nothing becomes a
tag; and the class report and the similarity page both write a student's id
through it, in HTML and in Markdown."""

import re
from pathlib import Path
from types import SimpleNamespace

import markdown_it
import pytest
from conftest import ROOT

from grader.student import markup
from grader.teacher.report import class_report, similar

# Every Markdown special, HTML, an entity, a control character, and an
# underscore inside a word (which starts nothing: left as it is).
HOSTILE = "a_b _c_ *d* **e** [l](http://x) ![i](y) <script>x</script> &amp; | ~~f~~ # g > h `c` \\ \x1b[2J"


def _render(md: str) -> str:
    return markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough").render(md)


def test_markdown_text_keeps_every_special_as_text():
    html = _render(markup.markdown_text(HOSTILE))
    for tag in ("<em", "<strong", "<a ", "<img", "<code", "<script", "<s>", "<del", "<h1", "<blockquote"):
        assert tag not in html, tag
    shown = markup.html_text(HOSTILE).replace("&#x27;", "'").replace("&quot;", '"')
    assert html == f"<p>{shown}</p>\n"  # exactly the text, as written (its ESC made visible)
    assert "a_b" in markup.markdown_text(HOSTILE)  # a name like head_size reads as written in the source too


def test_markdown_text_keeps_a_table_cell_whole_and_one_line():
    cell = markup.markdown_text("x | y\nz")
    html = _render(f"| a | b |\n|---|---|\n| {cell} | 2 |\n")
    assert html.count("<td>") == 2 and "x | y z" in html


@pytest.mark.parametrize("char", list("\\`*[]<>&~#!|"))
def test_markdown_text_escapes_each_special(char):
    assert markup.markdown_text(f"x{char}y") == f"x\\{char}y"


def test_html_text_escapes_tags_entities_and_quotes():
    assert markup.html_text("<b a=\"1\" c='2'>&amp;</b>\x1b") == "&lt;b a=&quot;1&quot; c=&#x27;2&#x27;&gt;&amp;amp;&lt;/b&gt;\\x1b"


def test_the_class_report_and_the_similarity_page_write_an_id_through_markup():
    student = "bo_b *x* [l](u) <s> & | ! ~ # `c` >"
    md, html = markup.markdown_text(student), markup.html_text(student)
    data = SimpleNamespace(out="/tmp/out", students=[], max_total=40)
    parts = [class_report.Section("s", "students", [class_report.Table(["id"], [[student]]), class_report.Para(student)])]
    assert f"| {md} |" in class_report.render_markdown(data, parts)
    assert f"<td>{html}</td>" in class_report.render_html(data, parts) and f"<p>{html}</p>" in class_report.render_html(data, parts)
    found = {"students": 2, "threshold": 0.5, "pairs_over_threshold": 1, "not_compared": [], "pairs": [{"a": student, "b": "ann", "score": 0.9, "exercises": []}]}
    assert f"### {md} ↔ ann" in similar.markdown_section(found)
    assert f'<span class="ids">{html} ↔ ann</span>' in similar.html_section(found)


def test_no_other_escaper_is_left():
    """Markdown is escaped in grader/student/markup.py alone."""
    defined = [str(p.relative_to(ROOT)) for p in Path(ROOT, "grader").rglob("*.py") if re.search(r"_MD_SPECIAL\s*=|def _md\(|def _h\(", p.read_text(encoding="utf-8"))]
    assert defined == ["grader/student/markup.py"]
