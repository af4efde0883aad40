"""Chinese first, then English, from one source file.

``:::{zh}`` and ``:::{en}`` hold a section's text in each language; the
roles ``{zh}`` and ``{en}`` do the same inline (figure captions). Both become
elements with a ``lang`` attribute and a ``lang-zh`` / ``lang-en`` class, which
``_static/lang.js`` shows or hides as the reader chooses.
"""

import re

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

LANGS = {"zh": "zh-CN", "en": "en"}


class lang_block(nodes.General, nodes.Element):
    """A block of text in one language."""


class lang_inline(nodes.Inline, nodes.TextElement):
    """A phrase in one language."""


def _attributes(node):
    return {"lang": LANGS[node["lang"]], "CLASS": f"lang-{node['lang']}"}


def visit_block(self, node):
    self.body.append(self.starttag(node, "div", "", **_attributes(node)))


def depart_block(self, node):
    self.body.append("</div>\n")


def visit_inline(self, node):
    self.body.append(self.starttag(node, "span", "", **_attributes(node)))


def depart_inline(self, node):
    self.body.append("</span>")


def block_directive(lang: str):
    class LangDirective(SphinxDirective):
        has_content = True

        def run(self):
            node = lang_block(lang=lang)
            self.set_source_info(node)
            self.state.nested_parse(self.content, self.content_offset, node)
            if not node.children:
                raise self.error(f"empty {{{lang}}} block")
            return [node]

    LangDirective.__name__ = f"{lang.capitalize()}Block"
    return LangDirective


def inline_role(lang: str):
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        parsed, messages = inliner.parse(text, lineno, inliner.parent, inliner.parent)
        node = lang_inline(rawtext, "", *parsed, lang=lang)
        return [node], messages

    return role


# Chinese has no spaces between words: a line break in the source between two
# Chinese characters must not become a space on the page.
_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_IS_CJK = re.compile(f"[{_CJK}]")


def join_chinese_lines(app, doctree):
    for para in doctree.findall(nodes.paragraph):
        texts = [t for t in para.findall(nodes.Text) if not isinstance(t.parent, (nodes.literal, nodes.FixedTextElement))]
        for i, text in enumerate(texts):
            old = str(text)
            before = str(texts[i - 1])[-1:] if i else ""
            after = str(texts[i + 1])[:1] if i + 1 < len(texts) else ""
            kept = []
            for p, ch in enumerate(old):
                left = old[p - 1] if p else before
                right = old[p + 1] if p + 1 < len(old) else after
                if ch == "\n" and _IS_CJK.match(left) and _IS_CJK.match(right):
                    continue  # the break between two Chinese characters disappears
                kept.append(ch)
            new = "".join(kept)
            if new != old:
                text.parent.replace(text, nodes.Text(new))


def setup(app):
    app.add_node(lang_block, html=(visit_block, depart_block))
    app.add_node(lang_inline, html=(visit_inline, depart_inline))
    for lang in LANGS:
        app.add_directive(lang, block_directive(lang))
        app.add_role(lang, inline_role(lang))
    app.connect("doctree-read", join_chinese_lines)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
