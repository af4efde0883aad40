"""The text the model learns from: the Chinese prose of this course's own pages.

``corpus.txt`` beside this file is made from the ``:::{zh}`` blocks of the
docs' Markdown sources (the pages of the student site: not ``answers/``, not
``{teacher-only}`` blocks), one paragraph or list item per line. Code blocks,
directives, English and markup are dropped; a role keeps the text it shows
(``{gls}`注意力头``` is 注意力头), and a sentence whose number or page title the
docs fill in at build time (a ``{num}`` or ``{doc}`` without text) is left out,
as it has no text to keep.

The text has no Latin letters at all, so that the model learns Chinese and
does not write half a name of code into it: inline code goes, and so does
every stretch between two Chinese characters that holds a Latin letter
(``head_size``, ``torch.tril(...)``, ``tox -e write``, ``(B, T, C)``, ``2 MB``);
numbers without letters stay (``[0.665, 0.245, 0.090]``). The punctuation
such a cut leaves dangling goes with it: empty brackets and quotes, a comma
before a full stop, a sentence that begins with a comma, a sentence with no
Chinese left. The file ships with the command, because a student edition has
no docs/.

    python -m write.corpus           # rewrite write/corpus.txt from docs/
    python -m write.corpus --check   # fail if it is out of date
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus.txt")
DOCS = os.path.join(os.path.dirname(HERE), "docs")

# Folders of docs/ that are not pages of the student site.
LEFT_OUT = ("_build", "_ext", "_static", "_templates", "figures", "answers")

CJK = re.compile(r"[\u3400-\u9fff]")
_CJK_SIDE = re.compile("[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]")  # as docs/_ext/bilingual.py joins lines
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_COLON = re.compile(r"^\s*(:{3,})\s*(\{([\w-]+)\})?.*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_ROLE = re.compile(r"\{([\w-]+)\}`([^`]*)`")
_CODE = re.compile(r"`([^`]*)`")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|\*)(\S.*?\S|\S)\1")
_TARGET = re.compile(r"^(.*\S)\s*<[^<>]*>$", flags=re.S)
_DROP = "\0"  # marks a sentence to leave out
_CUT = "\1"  # marks inline code, cut out with the stretch of Latin around it

# What is cut: a stretch of anything but Chinese characters and Chinese punctuation
# (letters, digits, spaces, ASCII signs, −, ×) that holds a Latin letter or inline code.
_CHINESE = "\u3400-\u9fff\u3000-\u303f\uff01-\uff20\uff3b-\uff40\uff5b-\uff65\u2018\u2019\u201c\u201d\u2014\u2026"
_STRETCH = re.compile(f"[^{_CHINESE}]+")
LATIN = re.compile("[A-Za-z\u00c0-\u024f\uff21-\uff3a\uff41-\uff5a]")
_EMPTY = re.compile(r"（[\s、，；：]*）|\([\s,;:]*\)|“\s*”|‘\s*’|《\s*》|【\s*】|「\s*」|\[\s*\]")
_CUT_MARK = "\2"  # where a stretch was cut, while the punctuation around it is tidied
_BESIDE_CUT = re.compile(f"\\s*(、?)\\s*{_CUT_MARK}+\\s*(、?)\\s*")  # an item cut out of a list takes one 、 with it
_DANGLING = re.compile(r"\s*[、，；：,;:]+\s*(?=[、，。；：！？）」』】”,.;:!?)])|\s*[、，,]+\s*$")  # a separator with nothing after it
_OPENING = re.compile(r"(^|[。！？；：（“「『【])\s*[、，；：,;:]+\s*")  # a sentence or bracket that opens with one
_SENTENCE = re.compile(r"(?<=[。！？；])(?![）”」』】])")  # a sentence keeps the bracket or quote it closes


def pages(docs: str = DOCS) -> list[str]:
    """The Markdown sources of the student site, in a fixed order (by path)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(docs):
        rel = os.path.relpath(dirpath, docs)
        dirnames[:] = sorted(d for d in dirnames if not (rel == "." and d in LEFT_OUT) and not d.startswith("."))
        found += [os.path.join(dirpath, n) for n in filenames if n.endswith(".md") and n != "README.md"]
    return sorted(found, key=lambda p: os.path.relpath(p, docs).replace(os.sep, "/"))


def zh_blocks(source: str) -> list[list[str]]:
    """The lines of every ``:::{zh}`` block that is not inside a backtick fence
    (code, ``{teacher-only}`` and other directives) and not itself code."""
    blocks, current = [], None
    fence = None  # (char, length) of the open backtick or tilde fence
    colons = []  # open colon fences: (length, name)
    for line in source.splitlines():
        if fence:
            m = _FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and not m.group(2).strip():
                fence = None
            continue
        m = _FENCE.match(line)
        if m:
            fence = (m.group(1)[0], len(m.group(1)))
            continue
        m = _COLON.match(line)
        if m:
            if m.group(2):
                colons.append((len(m.group(1)), m.group(3)))
                if m.group(3) == "zh" and len(colons) == 1:
                    current = []
            elif colons and len(m.group(1)) >= colons[-1][0]:
                _, name = colons.pop()
                if name == "zh" and current is not None and not colons:
                    blocks.append(current)
                    current = None
            continue
        if current is not None and len(colons) == 1:
            current.append(line)
    return blocks


def _role(m: re.Match) -> str:
    name, text = m.group(1), m.group(2)
    shown = _TARGET.match(text)
    if name in ("en",):
        return ""
    if name == "num":
        return shown.group(1) if shown else _DROP
    if name in ("doc", "ref"):
        return shown.group(1) if shown else _DROP  # the page's title, filled in at build time
    if name == "download":
        return shown.group(1) if shown else ""
    return shown.group(1) if shown else text  # gls, zh and the rest show their text


def _join(lines: list[str]) -> str:
    """Lines of one paragraph as one line. As on the site, a break between two
    Chinese characters disappears and any other becomes a space."""
    out = ""
    for line in lines:
        line = line.strip()
        if out and line and not (_CJK_SIDE.match(out[-1]) and _CJK_SIDE.match(line[0])):
            out += " "
        out += line
    return out


def without_latin(text: str) -> str:
    """Chinese text without its stretches of Latin letters or code, and without the punctuation they leave dangling."""
    text = _STRETCH.sub(lambda m: _CUT_MARK if LATIN.search(m.group()) or _CUT in m.group() else m.group(), text)
    text = _BESIDE_CUT.sub(lambda m: "、" if m.group(1) and m.group(2) else "", text)
    while True:
        tidy = _EMPTY.sub("", text)
        tidy = _DANGLING.sub("", tidy)
        tidy = _OPENING.sub(lambda m: m.group(1), tidy)
        if tidy == text:
            break
        text = tidy
    return "".join(s for s in _SENTENCE.split(text) if CJK.search(s))  # a sentence with no Chinese left goes


def clean(text: str) -> str:
    """Markup to plain text without Latin letters; sentences with a number computed at build time left out."""
    text = _ROLE.sub(_role, text)
    text = _CODE.sub(_CUT, text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _EMPHASIS.sub(lambda m: m.group(2), text)
    if _DROP in text:
        text = "".join(s for s in _SENTENCE.split(text) if _DROP not in s)
    text = without_latin(text)
    return re.sub(r"\s+", " ", text).strip()


def paragraphs(block: list[str]) -> list[str]:
    """The prose of one block: a line per paragraph or list item, code and tables left out."""
    out, para = [], []

    def flush():
        text = clean(_join(para))
        if CJK.search(text):
            out.append(text)
        para.clear()

    blank_before, in_list, in_code = True, False, False
    for line in block:
        indent = len(line) - len(line.lstrip())
        if not line.strip():
            flush()
            in_code = False
        elif in_code:
            pass  # an indented code block runs to the next blank line
        elif line.lstrip().startswith("|"):
            flush()  # a table's cells are not sentences
        elif _LIST_ITEM.match(line):
            flush()
            para.append(_LIST_ITEM.sub("", line))
            in_list = True
        elif blank_before and indent >= 4 and not (in_list and indent < 6):
            in_code = True
        else:
            in_list = in_list and not (blank_before and indent == 0)
            para.append(line)
        blank_before = not line.strip()
    flush()
    return out


def extract(docs: str = DOCS) -> str:
    """The corpus as it should be now: every page's Chinese paragraphs, a line each."""
    lines = []
    for path in pages(docs):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        for block in zh_blocks(source):
            lines += paragraphs(block)
    return "\n".join(lines) + "\n"


class Vocabulary:
    """Characters and their numbers: every distinct character of a text, in sorted order."""

    def __init__(self, text: str):
        self.chars = "".join(sorted(set(text)))
        self._number = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        return [self._number[c] for c in text]

    def decode(self, numbers) -> str:
        return "".join(self.chars[i] for i in numbers)

    def unknown(self, text: str) -> str:
        """The characters of ``text`` that are not in the vocabulary, each once."""
        return "".join(dict.fromkeys(c for c in text if c not in self._number))


def load(path: str = CORPUS) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m write.corpus", description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="only say whether write/corpus.txt is up to date")
    p.add_argument("--docs", default=DOCS, help="the docs' sources (default: docs/ beside write/)")
    args = p.parse_args(argv)
    if not os.path.isdir(args.docs):
        print(f"no docs folder {args.docs}: the corpus is made from the course's docs sources", file=sys.stderr)
        return 2
    text = extract(args.docs)
    current = load() if os.path.exists(CORPUS) else None
    if current == text:
        print(f"corpus.txt is up to date ({len(text)} characters)")
        return 0
    if args.check:
        print("write/corpus.txt is out of date: run python -m write.corpus", file=sys.stderr)
        return 1
    with open(CORPUS, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote write/corpus.txt ({len(text)} characters, {len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
