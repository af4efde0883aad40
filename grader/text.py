"""Bilingual text: every message a student sees comes in Chinese, then English;
and ``visible``, which makes text from a submission safe to show."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    zh: str
    en: str

    def __str__(self) -> str:
        return f"{self.zh}\n{self.en}" if self.zh != self.en else self.zh

    def inline(self) -> str:
        return f"{self.zh} / {self.en}"


def t(zh: str, en: str) -> Text:
    return Text(zh, en)


def count(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and the English noun in its number: "1 check", "2 checks", "1 entry"."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


# These mark the parts of a failed check's feedback, for the student to read:
# plugin.format_failure writes them. Nothing parses them back: the class report
# reads a check's diagnosis from results.json's extra_data (report.check_data).
# All labels take the same width, so the texts after them line up.
TESTED_LABEL = "测试 / tested:   "  # a wrong answer's feedback starts with it
DIAGNOSIS_LABEL = "诊断 / found:    "  # the mistake the answer matches, last when present
# An untouched stub raises NotImplementedError; every check it fails says this first.
NOT_IMPLEMENTED = Text("尚未完成", "not implemented yet")


# Characters that act on the reader's screen instead of showing as
# themselves, in text a submission wrote (what its code raised, returned,
# printed or named; the names of its files):
# - C0 controls and DEL: ESC starts every terminal sequence (clear the screen,
#   move the cursor, set the window title, OSC 52: write the clipboard), BEL
#   ends OSC ones, VT and FF move the cursor down;
# - C1 controls (U+0080-U+009F): U+009B alone is CSI, U+009D OSC, in
#   terminals that read 8-bit controls;
# - bidirectional marks, overrides and isolates (U+061C, U+200E-U+200F,
#   U+202A-U+202E, U+2066-U+2069): they reorder the text after them on screen,
#   so that "\u202e001 / 001" reads "100 / 100" ("Trojan Source");
# - lone surrogates, which a JSON message can carry and no UTF-8 file or
#   terminal can take (writing one would fail the report).
# Tabs and newlines stay: tracebacks and printed tables need them, and the
# reports split lines themselves. A carriage return stays before a newline
# (a Windows line end is one line end); alone it sends the cursor back to the
# start of the line, and the rest would be painted over what the line showed
# (the score in front of it, say): it is escaped.
_UNSEEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)")


def _shown(c: str) -> str:
    """A character as Python would write it in a string: \\x1b, \\u202e, \\U000e0001."""
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else (f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")


def visible(text: str, name: bool = False) -> str:
    """``text`` with every character that would act on a terminal or reorder
    what it shows written out as its escape (ESC as the four characters
    ``\\x1b``), so the reader sees what was sent and nothing happens.

    ``name``: a name (of a file, a folder, a student), which is one line and
    shows every character: tabs, newlines and anything else that does not
    print (zero-width and other format characters, unassigned code points)
    are escaped too. Applying it twice changes nothing more (a backslash
    prints)."""
    if text.isascii() and text.isprintable():
        return text  # the usual case (every key of every message): nothing to escape
    if name:
        return "".join(c if c.isprintable() or c == " " else _shown(c) for c in text)
    return _UNSEEN.sub(lambda m: _shown(m.group()), text)
