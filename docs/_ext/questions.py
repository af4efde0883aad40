"""Check-your-understanding questions with their answers folded away.

A page ends with questions, as the seed lesson's 小练习与答案 does::

    ::::{answer}
    :::{zh}
    权重都是三分之一……
    :::
    :::{en}
    The weights are a third each...
    :::
    ::::

The question itself is ordinary text (``:::{zh}`` / ``:::{en}``) just before
its ``{answer}``. The answer becomes ``<details>``: closed until the reader
opens it, so they can think first. Its text is parsed like the rest of the
page, so ``{num}`` numbers inside it are computed at build time too.
"""

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

SUMMARY = (("zh", "zh-CN", "答案"), ("en", "en", "Answer"))


class answer_node(nodes.General, nodes.Element):
    """An answer, folded until opened."""


def visit_answer(self, node):
    self.body.append(self.starttag(node, "details", "", CLASS="answer"))
    spans = "".join(f'<span class="lang-{k}" lang="{lang}">{text}</span>' for k, lang, text in SUMMARY)
    self.body.append(f"<summary>{spans}</summary>\n")


def depart_answer(self, node):
    self.body.append("</details>\n")


def visit_answer_text(self, node):
    """Builders without <details> (text, search index) show the answer as it is."""


class AnswerDirective(SphinxDirective):
    has_content = True

    def run(self):
        node = answer_node()
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        if not node.children:
            raise self.error("empty {answer}")
        return [node]


def setup(app):
    app.add_node(
        answer_node,
        html=(visit_answer, depart_answer),
        text=(visit_answer_text, None),
    )
    app.add_directive("answer", AnswerDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
