"""Text that stays text in HTML and Markdown: the one place the reports
escape what students chose (ids, file names, notes, their output).

Used by the feedback file (``engine/report``), the batch's notes
(``teacher/batch_output``), the class report and the similarity page. It
imports nothing heavy (no torch): the class report's process stays light.
Every text is first made ``visible``: control characters and bidi overrides
are written as escapes (a U+202E in a student's excerpt would show code in
another order than Python reads it); applying it twice changes nothing more.
"""

import html
import re

from grader.text import visible


def html_text(text) -> str:
    """``text`` for HTML, in an element or a quoted attribute."""
    return html.escape(visible(str(text)), quote=True)


# What could start a link or an image ([ ] !), code (`), emphasis (* _ ~),
# a heading (#), a blockquote (>), HTML or an entity (< > &), or end a table
# cell (|) in a line of Markdown text; and the backslash that escapes them.
# An underscore inside a word (head_size, ex0_weighted_sum.py) starts nothing
# in CommonMark: left as it is, so names read as written.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>&~#!|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def markdown_text(text) -> str:
    """One line of Markdown that shows ``text`` as written, outside a code
    block and in a table cell: its lines are joined with spaces, and nothing
    in it starts a link, emphasis or HTML or ends the cell (a folder named
    ``<script>`` or ``a|b`` is just words)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(visible(str(text)).splitlines()))


def fenced(text: str, info: str = "text") -> list[str]:
    """``text`` as the lines of a fenced code block that no line of it can
    close: the fence is longer than the longest run of backticks in it
    (CommonMark closes a fence only with one at least as long). In it,
    Markdown and HTML are text: a student's ``<img>`` or ``[link](...)``
    shows as written (found by
    tests/attacks/ex0_weighted_sum__feedback_fence_breakout.py)."""
    longest = max(map(len, re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, text, fence]
