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
