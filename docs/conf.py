"""Sphinx configuration: the student site, or the teacher site with ``-t teacher``.

tox -e docs            # student site  -> docs/_build/html/
tox -e docs-teacher    # teacher site  -> docs/_build/teacher/
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The extensions; the reference solutions (figures and examples run them); the grader.
for path in (DOCS / "_ext", ROOT / "solutions", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

project = "自注意力练习 · Self-attention exercises"
author = "the course's authors"
copyright = "2026, the course's authors"
language = "zh_CN"
teacher_edition = tags.has("teacher")  # noqa: F821 - Sphinx passes tags to conf.py

extensions = [
    "myst_parser",
    "build_cache",
    "bilingual",
    "computed",
    "student_code_note",
    "figure_gen",
    "glossary_data",
    "grader_output",
    "mistake_table",
    "check_list",
    "promise_table",
    "exercise_list",
    "teacher_edition",
    "answer_pages",
    "weighted_sum_slider",
    "questions",
    "experiment",
    "cli_help",
    "chinese_search",
]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

exclude_patterns = ["_build", "figures", "README.md"]
if not teacher_edition:
    exclude_patterns.append("answers/**")  # reference solutions and hidden checks
    exclude_patterns.append("teachers/teaching.md")  # the teaching guide answers its own questions
    exclude_patterns.append("teachers/promises.md")  # names every hidden check

templates_path = ["_templates"]
html_theme = "alabaster"
html_title = project
html_static_path = ["_static"]
html_css_files = ["lang.css", "site.css"]
html_js_files = ["lang.js"]
html_favicon = "_static/favicon.svg"
html_copy_source = False  # no page sources in the site: the build shows what it computed
html_show_sourcelink = False
html_search_language = "zh"  # jieba splits Chinese; Latin words are indexed too
html_last_updated_fmt = None
html_sidebars = {"**": ["about.html", "searchfield.html", "navigation.html", "relations.html"]}

_SANS = '"Helvetica Neue", Helvetica, Arial, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", sans-serif'
_MONO = 'Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", "WenQuanYi Micro Hei Mono", monospace'
from grader.exercises import EXERCISES  # noqa: E402 - the course's table, on the path above

html_theme_options = {
    "description": f"从一次加权求和到{EXERCISES[-1].zh}"
    + ("（教师版）" if teacher_edition else "")
    + f" · From a weighted sum to {EXERCISES[-1].en}"
    + (" (teacher edition)" if teacher_edition else ""),
    "font_family": _SANS,
    "head_font_family": _SANS,
    "caption_font_family": _SANS,
    "code_font_family": _MONO,
    "page_width": "1060px",
    "sidebar_width": "240px",
    "show_relbar_bottom": True,
}
