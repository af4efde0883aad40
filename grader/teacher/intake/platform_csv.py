"""A CSV file a learning platform wrote (Canvas's gradebook export,
Moodle's grading worksheet), read so that it can be written back as it
was: its byte-order mark, its separator (Canvas writes ``;`` where the
decimal separator is ``,``) and its line ends are kept, and every cell we
do not fill stays the text it was.
"""

import csv
import io
from dataclasses import dataclass

from grader.files import write_atomically


class PlatformFileError(Exception):
    """A file that is not the platform's file we expect; the message is bilingual."""


@dataclass
class Table:
    path: str
    rows: list[list[str]]
    bom: bool
    delimiter: str
    lineterminator: str

    @property
    def header(self) -> list[str]:
        return self.rows[0]

    def column(self, name: str) -> int | None:
        """The index of the header cell ``name`` (spaces around it ignored)."""
        for i, cell in enumerate(self.header):
            if cell.strip() == name:
                return i
        return None

    def write(self, path: str) -> None:
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=self.delimiter, lineterminator=self.lineterminator)
        w.writerows(self.rows)
        write_atomically(path, ("\ufeff" if self.bom else "") + buf.getvalue())


def read(path: str, what: str) -> Table:
    """``path`` as a ``Table``; ``PlatformFileError`` naming ``what`` (the
    file the platform calls it) if it cannot be read as CSV."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise PlatformFileError(f"无法读取 {what} / cannot read the {what}: {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PlatformFileError(f"{what} 不是 UTF-8 编码 / the {what} is not UTF-8: {path}") from None
    bom = text.startswith("\ufeff")
    text = text.removeprefix("\ufeff")
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    lineterminator = "\r\n" if "\r\n" in text[:4096] or not text.count("\n") else "\n"
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise PlatformFileError(f"{what} 不是有效的 CSV / the {what} is not valid CSV: {path}: {exc}") from None
    if not rows:
        raise PlatformFileError(f"{what} 是空的 / the {what} is empty: {path}")
    return Table(path, rows, bom, delimiter, lineterminator)
