"""Bilingual text: every message a student sees comes in Chinese, then English."""
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


# Where a failed check's feedback is read back (the class report), these mark
# its parts: plugin.format_failure writes them, grader.class_data parses them.
# All labels take the same width, so the texts after them line up.
TESTED_LABEL = "测试 / tested:   "  # a wrong answer's feedback starts with it
DIAGNOSIS_LABEL = "诊断 / found:    "  # the mistake the answer matches, last when present
# An untouched stub raises NotImplementedError; every check it fails says this first.
NOT_IMPLEMENTED = Text("尚未完成", "not implemented yet")
