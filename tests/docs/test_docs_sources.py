"""The docs' sources: both languages in every section, the glossary, and the
numbers and examples that the build checks.

Runs without building the site (the builds are in test_docs_build.py).
"""

import csv
import re
from pathlib import Path

import pytest
from docs_site import DOCS, markdown_tokens, sources, sphinx_build

PAGES = sources()
CJK = re.compile(r"[\u3400-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
GLOSSARY = list(csv.DictReader(open(DOCS / "glossary.csv", encoding="utf-8", newline="")))


def page_id(path: Path) -> str:
    return str(path.relative_to(DOCS))


# --- the shape of a page --------------------------------------------------------


def sections(tokens):
    """(heading, [(kind, token)]) for each section; kind is zh, en, or other."""
    out, current = [], None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            current = (tokens[i + 1].content, [])
            out.append(current)
            i += 3
            continue
        if current is not None and tok.level == 0 and not tok.type.endswith("_close"):
            current[1].append((_kind(tok), tok))
        i += 1
    return out


def _kind(tok) -> str:
    info = tok.info.strip() if tok.type in ("fence", "colon_fence") else ""
    return {"{zh}": "zh", "{en}": "en"}.get(info, "other")


def _check_languages(blocks, where: str) -> list[str]:
    """Language blocks come as pairs, Chinese first; no text outside them."""
    problems = []
    langs = [kind for kind, _ in blocks if kind in ("zh", "en")]
    if not langs and all(tok.type == "fence" and tok.info.strip() == "{compute}" for _, tok in blocks):
        return problems  # a heading that only groups the subsections under it (code it runs is not shown)
    if not langs:
        problems.append(f"{where}: no text in either language")
    elif langs != ["zh", "en"] * (len(langs) // 2) or len(langs) % 2:
        problems.append(f"{where}: language blocks are {langs}; each {{zh}} block must be followed by its {{en}} block")
    for kind, tok in blocks:
        if kind == "zh" and not CJK.search(tok.content):
            problems.append(f"{where}: a {{zh}} block has no Chinese: {tok.content[:60]!r}")
        if kind == "en":
            prose = re.sub(r"`[^`]*`", "", tok.content)
            if len(CJK.findall(prose)) > 0.1 * len(LATIN.findall(prose)):
                problems.append(f"{where}: an {{en}} block is mostly Chinese: {tok.content[:60]!r}")
        if tok.type in ("paragraph_open", "bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"):
            problems.append(f"{where}: text outside a {{zh}} / {{en}} block at line {tok.map[0] + 1 if tok.map else '?'}")
        if tok.type == "fence" and tok.info.strip() == "{teacher-only}":
            inner = [(_kind(t), t) for t in markdown_tokens(tok.content) if t.level == 0 and not t.type.endswith("_close")]
            problems += _check_languages(inner, where + " {teacher-only}")
        if tok.type == "fence" and tok.info.strip() == "{figure-gen}":
            caption = tok.content.split("\n\n", 1)[-1]
            if not ("{zh}`" in caption and "{en}`" in caption and caption.index("{zh}`") < caption.index("{en}`")):
                problems.append(f"{where}: a figure's caption needs {{zh}}`...` then {{en}}`...`")
    return problems


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_section_has_chinese_then_english(path):
    tokens = markdown_tokens(path.read_text(encoding="utf-8"))
    found = sections(tokens)
    assert found, f"{page_id(path)} has no heading"
    problems = []
    for heading, blocks in found:
        problems += _check_languages(blocks, f"{page_id(path)} § {heading}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_headings_are_chinese_then_english(path):
    """Titles are written “中文 · English”; the site splits them at the dot."""
    tokens = markdown_tokens(path.read_text(encoding="utf-8"))
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            title = tokens[i + 1].content
            zh, sep, en = title.partition(" · ")
            english = len(LATIN.findall(en)) > 2 * len(CJK.findall(en))
            assert sep and CJK.search(zh) and english, f"{page_id(path)}: heading {title!r} is not “中文 · English”"


OPENING = "这一课完成什么 · What this lesson does"
KEY_POINTS = "本篇要点 · Key points"
QUESTIONS = "小练习与答案 · Check your understanding"
EXERCISE_PAGES = sorted((DOCS / "path").glob("ex*.md"))


@pytest.mark.parametrize("path", EXERCISE_PAGES, ids=page_id)
def test_a_lesson_opens_with_its_aim_and_closes_with_its_key_points(path):
    """As the seed lessons do: the first section says what the page achieves; the
    key points, a list in each language, come just before the questions."""
    headings = [heading for heading, _ in sections(markdown_tokens(path.read_text(encoding="utf-8")))]
    assert headings[1] == OPENING, f"{page_id(path)}: the first section is {headings[1]!r}, not {OPENING!r}"
    assert KEY_POINTS in headings and QUESTIONS in headings, f"{page_id(path)} lacks {KEY_POINTS!r} or {QUESTIONS!r}"
    assert headings.index(QUESTIONS) == headings.index(KEY_POINTS) + 1, f"{page_id(path)}: the key points come just before the questions"
    blocks = dict(sections(markdown_tokens(path.read_text(encoding="utf-8"))))[KEY_POINTS]
    lists = [tok for _, tok in blocks if tok.type == "colon_fence" and "\n- " in "\n" + tok.content]
    assert len(lists) == 2, f"{page_id(path)}: the key points are a list in Chinese and one in English"


# --- the glossary -----------------------------------------------------------------


def test_glossary_rows_are_complete():
    assert len(GLOSSARY) >= 20
    for row in GLOSSARY:
        assert set(row) == {"zh", "en", "zh_definition", "en_definition"}, row
        assert CJK.search(row["zh"]) and not CJK.search(row["en"]), row
        assert CJK.search(row["zh_definition"]) and LATIN.search(row["en_definition"]), row
    for column in ("zh", "en"):
        names = [row[column].lower() for row in GLOSSARY]
        assert len(names) == len(set(names)), f"a {column} term appears twice"


def _zh_text(path: Path) -> str:
    """All Chinese blocks of a page, in order, teacher-only ones included."""
    parts = []

    def walk(tokens):
        for tok in tokens:
            if tok.type == "colon_fence" and tok.info.strip() == "{zh}":
                parts.append(tok.content)
            elif tok.type == "fence" and tok.info.strip() == "{teacher-only}":
                walk(markdown_tokens(tok.content))

    walk(markdown_tokens(path.read_text(encoding="utf-8")))
    return "\n".join(parts)


ROLE = re.compile(r"\{([\w-]+)\}`([^`]*)`")
TERMS = sorted((row["zh"] for row in GLOSSARY if len(row["zh"].replace(" ", "")) > 1), key=len, reverse=True)


def first_uses(text: str) -> dict:
    """Each glossary term's first use in the text: 'role' for {gls}`term`, else 'raw'.
    Code, other roles and indented code are not text. Longest term wins where
    terms overlap (自注意力 is not a use of 注意力). One-character terms (键, 值)
    are left out: as parts of other words (数值) they would be false alarms."""
    text = "\n".join(line for line in text.splitlines() if not line.startswith("    "))
    seen = {}
    pos = 0
    pieces = []
    for m in ROLE.finditer(text):
        pieces.append(("text", text[pos : m.start()]))
        pieces.append((m.group(1), m.group(2)))
        pos = m.end()
    pieces.append(("text", text[pos:]))
    for kind, body in pieces:
        if kind == "gls":
            seen.setdefault(body, "role")
        elif kind == "text":
            body = re.sub(r"`[^`]*`", "", body)
            i = 0
            while i < len(body):
                term = next((t for t in TERMS if body.startswith(t, i)), None)
                if term:
                    seen.setdefault(term, "raw")
                    i += len(term)
                else:
                    i += 1
    return seen


@pytest.mark.parametrize("path", [p for p in PAGES if p.name != "glossary.md"], ids=page_id)
def test_chinese_terms_give_the_english_at_first_use(path):
    """The first use of a glossary term on a page is {gls}`term`, which shows
    “term（English）” and links to the glossary."""
    raw = sorted(term for term, how in first_uses(_zh_text(path)).items() if how == "raw")
    assert not raw, f"{page_id(path)}: first use of {raw} is not {{gls}}`...`"


def test_first_use_rule_sees_raw_terms():
    assert first_uses("先讲因果掩码，再讲{gls}`因果掩码`。") == {"因果掩码": "raw"}
    assert first_uses("{gls}`因果掩码`，因果掩码。")["因果掩码"] == "role"
    assert "注意力" not in first_uses("自注意力")


# --- the examples run -------------------------------------------------------------


def runnable_blocks(path: Path):
    """The page's {compute} blocks and >>> examples, in page order."""

    def walk(tokens):
        for tok in tokens:
            info = tok.info.strip() if tok.type in ("fence", "colon_fence") else ""
            if info == "{compute}":
                yield "compute", tok
            elif tok.type == "fence" and tok.content.lstrip().startswith(">>>"):
                yield "doctest", tok
            elif info in ("{zh}", "{en}", "{teacher-only}"):
                yield from walk(markdown_tokens(tok.content))

    yield from walk(markdown_tokens(path.read_text(encoding="utf-8")))


RUNNABLE = [p for p in PAGES if any(True for _ in runnable_blocks(p))]


@pytest.mark.parametrize("path", RUNNABLE, ids=page_id)
def test_docs_examples(path):
    """The same run the build does, without Sphinx: every example gives the output the page shows."""
    from computed import page_namespace, run_code, run_doctest

    namespace = page_namespace()
    for kind, tok in runnable_blocks(path):
        where = f"{page_id(path)}:{tok.map[0] + 1}"
        problem = run_code(tok.content, namespace, where) if kind == "compute" else run_doctest(tok.content, namespace, where, tok.map[0] + 1)
        assert not problem, problem


def test_examples_are_found():
    assert len(RUNNABLE) >= 8
    assert sum(kind == "doctest" for p in RUNNABLE for kind, _ in runnable_blocks(p)) >= 10


# --- a wrong number fails the build ----------------------------------------------

WRONG_PAGE = """# 数 · Numbers

```{compute}
weights = [0.665, 0.245, 0.090]
```

:::{zh}
权重是 {num}`[0.665, 0.245, 0.091] <weights>`。
:::

:::{en}
The weights are {num}`[0.665, 0.245, 0.090] <weights>`.
:::

```pycon
>>> 1 + 1
3
```
"""


def test_build_fails_when_text_and_computation_disagree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\nextensions = ['myst_parser', 'bilingual', 'computed']\nmyst_enable_extensions = ['colon_fence']\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text(WRONG_PAGE, encoding="utf-8")
    proc = sphinx_build(src, tmp_path / "out")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, log
    assert "0.091" in log and "doctest failed" in log, log
    assert "[0.665, 0.245, 0.090]" not in log.split("0.091")[0][-200:], "the right number was reported as wrong"
