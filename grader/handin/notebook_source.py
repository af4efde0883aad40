"""A Jupyter notebook handed in as ``<id>.ipynb``, read as the Python
source the grader runs in place of ``<id>.py`` (``read``).

Not to be confused with ``grader/notebook.py``, the ``check()`` a student
calls inside Jupyter, which reads its exercise's notebook with this module,
nor with ``grader/teacher/edition/course_notebooks.py``, which writes the course's
notebooks.

Which cells: the notebook's *answer cells*, joined in order. The course's
notebooks mark theirs with ``"exercise": "<id>"`` in the cell's metadata and
nbgrader marks its with ``"nbgrader": {"solution": true}``; a notebook that
marks none (one a student started on their own) has all its code cells
graded. The other cells of a marked notebook (the experiment, the cell that
calls ``check``) are the student's tools, not the answer. A note names the
cells graded when they are not the one marked cell (``_cells_note``).

IPython's own syntax is not Python, and the grader runs no IPython: a line
magic (``%matplotlib inline``), a shell escape (``!pip install x``, ``x =
!ls``), a help request (``torch.softmax?``), ``get_ipython()`` and a cell
magic (``%%bash``) become comments. ``%time`` and ``%timeit`` in front of a
statement, and the ``%%time``/``%%timeit``/``%%capture`` cell magics, keep
the code they time: it runs once. Each change is a note the student reads.
A line is IPython's only where a statement begins: inside a string, a
bracket or a line continued by a backslash it is Python's. Python's
tokenizer says where statements begin (``_at_statement_starts``), so reading
costs time in proportion to the notebook's size; a notebook of over
``MAX_CELLS`` cells, or (``read``'s ``max_code``) more graded code than a file
may hold, is refused before any line is converted.

Lines are named as the student sees them, "cell 4, line 2" (cells counted
from the top of the notebook, markdown ones too, from 1): ``Code.where``.

Validation is nbformat's (the Jupyter project's own schema), on the cells
without their outputs: outputs are never graded, and a broken one must not
cost the answer its points. nbformat is imported only when a notebook is
read, so grading ``.py`` files costs nothing more.
"""

import functools
import json
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Callable

from grader.text import Text, visible

# Cell magics whose body is Python that IPython runs as it is (timed, or with
# its output captured): the body is kept, the magic line becomes a comment.
KEEP_BODY = {"time", "timeit", "capture", "prun"}
# Line magics in front of a statement that IPython runs (timed): the
# statement is kept.
KEEP_STATEMENT = {"time", "timeit", "prun"}
NOTES_SHOWN = 5  # changed lines listed by name; the rest are counted
MAX_CELLS = 10_000  # a course notebook has about 15
# A closing bracket that closes nothing: Python 3.11's tokenizer counts it
# (the brackets open go below zero), 3.12's ignores it.
_UNMATCHED_CLOSES = sys.version_info < (3, 12)

_ASSIGNED_ESCAPE = re.compile(r"[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
_HELP = re.compile(r"^\??[A-Za-z_][\w.]*\?{1,2}$")
_GET_IPYTHON = re.compile(r"([A-Za-z_][\w.]*\s*=\s*)?get_ipython\s*\(")


class NotebookError(ValueError):
    """Not a notebook the grader can read: ``text`` says why, in both languages."""

    def __init__(self, text: Text):
        super().__init__(text.en)
        self.text = text


@dataclass
class Code:
    """The joined code, with where each of its lines came from."""

    display_name: str
    source: str
    places: list[tuple[int, int]] = field(default_factory=list)  # line n of source -> (cell, line in cell); 0: a line we added
    notes: list[Text] = field(default_factory=list)

    def where(self, n: int) -> Text:
        """Line ``n`` (from 1) of the joined code, as the student finds it."""
        cell, line = self.places[n - 1] if 0 < n <= len(self.places) else (0, 0)
        if cell == 0:
            return Text(f"{self.display_name} 第 {n} 行", f"{self.display_name}, line {n}")
        return Text(f"{self.display_name} 第 {cell} 个单元格第 {line} 行", f"{self.display_name}, cell {cell}, line {line}")


def without_iri_parser() -> None:
    """Call before importing nbformat. Its validator, jsonschema, builds an
    Earley parser for IRIs on import when ``rfc3987_syntax`` is installed
    (nbgrader's dependencies bring it): 2 to 6 s, most of nbformat's import,
    for a format check that validating a notebook never makes. The module is
    marked absent, as jsonschema expects where it is not installed."""
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "cannot be imported", as the import system reads it


def read(data: bytes, display_name: str, exercise_id: str, max_code: int | None = None) -> Code:
    """The notebook ``data`` as code; NotebookError if it is not valid JSON,
    not a valid notebook of nbformat 4, or (``max_code``) its graded cells
    hold more characters than that: refused before any line is converted, so
    reading costs time in proportion to what could be graded."""
    notebook = _parse(data, display_name)
    cells = notebook["cells"]
    marked = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and _is_answer(c, exercise_id)]
    chosen = marked or [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    size = sum(len(s) if isinstance(s, str) else sum(map(len, s)) for s in (cells[i]["source"] for i in chosen))
    if max_code is not None and size > max_code:
        raise NotebookError(too_much_code(display_name, f"{size} 个字符", f"{size} characters", max_code))
    code = Code(display_name, "")
    lines: list[str] = []
    changed = _Changes()
    for i in chosen:
        number = i + 1
        text = cells[i]["source"]
        text = "".join(text) if isinstance(text, list) else text
        if lines:
            lines.append("")
            code.places.append((0, 0))
        lines.append(f"# cell {number}")
        code.places.append((0, 0))
        for j, line in enumerate(_python_lines(text.splitlines(), number, changed), start=1):
            lines.append(line)
            code.places.append((number, j))
    code.source = "\n".join(lines) + "\n" if lines else ""
    if changed.count:
        shown = "; ".join(c.en for c in changed.shown)
        shown_zh = "；".join(c.zh for c in changed.shown)
        more = changed.count - len(changed.shown)
        code.notes.append(
            Text(
                f"{display_name}：IPython 自己的写法不是 Python，这些行改了：{shown_zh}" + (f"；另有 {more} 行" if more > 0 else ""),
                f"{display_name}: IPython's own syntax is not Python, so these lines were changed: {shown}" + (f"; {more} more" if more > 0 else ""),
            )
        )
    note = _cells_note(display_name, exercise_id, marked, chosen)
    if note is not None:
        code.notes.append(note)
    return code


def _cells_note(display_name: str, exercise_id: str, marked: list[int], chosen: list[int]) -> Text | None:
    """Which cells were graded, when the student could not tell: none is
    marked, so every code cell was (the experiment and ``check`` too: the
    answer cell was deleted, or retyped in a new cell, which has no mark), or
    more than one is (a copied answer cell keeps its mark). One marked cell,
    the course's notebook as given, goes without a note: it says in the
    notebook itself which cell is graded, and errors name their cell."""
    if not marked and chosen:
        return Text(
            f'{display_name}：没有标为这道练习答案的单元格（元数据里的 "exercise": "{exercise_id}"），'
            f"所以评分的是全部代码单元格（第 {_numbers(chosen)} 个）。课程的笔记本里，答案写在标好的那个单元格里：新建的单元格没有这个标记",
            f'{display_name}: no cell is marked as this exercise\'s answer ("exercise": "{exercise_id}" in its metadata), '
            f"so every code cell was graded (cells {_numbers(chosen)}). In the course's notebook, write the answer in the "
            "marked cell: a new cell has no mark",
        )
    if len(marked) > 1:
        return Text(
            f"{display_name}：评分的是标为答案的 {len(marked)} 个单元格（第 {_numbers(marked)} 个），按顺序连在一起；复制的答案单元格也带着标记",
            f"{display_name}: graded its {len(marked)} answer cells (cells {_numbers(marked)}), joined in order; a copy of the answer cell keeps its mark",
        )
    return None


def too_much_code(display_name: str, zh: str, en: str, limit: int) -> Text:
    return Text(f"{display_name} 的代码太多（{zh}，上限 {limit} 字节）", f"{display_name} holds too much code ({en}, the limit is {limit} bytes)")


def _numbers(indexes: list[int]) -> str:
    return ", ".join(str(i + 1) for i in indexes)


def _parse(data: bytes, display_name: str) -> dict:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except RecursionError:
        raise NotebookError(_too_deep(display_name)) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotebookError(
            Text(
                f"{display_name} 不是有效的 JSON，所以不是 Jupyter 笔记本（{_short(exc)}）：请在 Jupyter 里重新保存",
                f"{display_name} is not valid JSON, so not a Jupyter notebook ({_short(exc)}): save it again from Jupyter",
            )
        ) from None
    major = notebook.get("nbformat") if isinstance(notebook, dict) else None
    if major != 4:
        found = Text(f"nbformat {major}", f"nbformat {major}") if isinstance(major, int) else Text("没有 nbformat 版本号", "no nbformat version")
        raise NotebookError(
            Text(
                f"{display_name} 不是 nbformat 4 的笔记本（{found.zh}）：请用 Jupyter（4.0 以后的版本）重新保存",
                f"{display_name} is not an nbformat 4 notebook ({found.en}): save it again with Jupyter (any version since 4.0)",
            )
        )
    cells = notebook.get("cells")
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        # Validating costs time per cell: a notebook of more cells than anyone
        # keeps is refused before it is validated.
        raise NotebookError(
            Text(
                f"{display_name} 有 {len(cells)} 个单元格，上限是 {MAX_CELLS}：请把答案放在一个单元格数量正常的笔记本里",
                f"{display_name} has {len(cells)} cells, and the limit is {MAX_CELLS}: hand in your answer in a notebook of an ordinary number of cells",
            )
        )
    without_iri_parser()
    import nbformat  # only here: grading .py files never pays for its import

    checked = dict(notebook)
    if isinstance(cells, list):  # outputs are never graded: a broken one costs nothing
        checked["cells"] = [dict(c, outputs=[]) if isinstance(c, dict) and c.get("cell_type") == "code" else c for c in cells]
    try:
        # Extra keys are allowed where the schema does not list them (Colab's
        # notebooks carry some); a missing cell id is only a warning to nbformat.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(checked, relax_add_props=True)
    except RecursionError:  # nesting that JSON read, and the validator's own recursion did not
        raise NotebookError(_too_deep(display_name)) from None
    except (nbformat.ValidationError, TypeError, KeyError, AttributeError, ValueError) as exc:
        # nbformat tidies a notebook before it validates it, and that can
        # fail on a malformed one with an error of its own (cells: 3).
        raise NotebookError(
            Text(
                f"{display_name} 不是有效的 nbformat 4 笔记本（{_short(exc)}）：请在 Jupyter 里重新保存",
                f"{display_name} is not a valid nbformat 4 notebook ({_short(exc)}): save it again from Jupyter",
            )
        ) from None
    return notebook


def _too_deep(display_name: str) -> Text:
    return Text(
        f"{display_name} 里的 JSON 嵌套得太深，读不了：Jupyter 不会这样保存笔记本。请在 Jupyter 里新建一个笔记本，把代码复制过去再保存",
        f"{display_name} nests its JSON too deeply to be read: Jupyter never saves a notebook like that. Make a new notebook in Jupyter, copy the code into it and save it",
    )


def _short(exc: Exception) -> str:
    try:
        said = str(getattr(exc, "message", None) or exc)
    except Exception:  # noqa: BLE001 - nbformat's message of a deeply nested notebook recurses too deeply to be made
        said = ""
    first = said.splitlines()[0] if said.strip() else type(exc).__name__
    return visible(first[:160], name=True)


def _is_answer(cell: dict, exercise_id: str) -> bool:
    metadata = cell.get("metadata") or {}
    nbgrader = metadata.get("nbgrader")
    return metadata.get("exercise") == exercise_id or (isinstance(nbgrader, dict) and nbgrader.get("solution") is True)


class _Changes:
    """The lines IPython's syntax changed: counted, and the first
    ``NOTES_SHOWN`` described (a cell of 100,000 magics makes no 100,000 notes)."""

    def __init__(self):
        self.count, self.shown = 0, []

    def append(self, cell: int, line: int, text: str, became: Text) -> None:
        self.count += 1
        if len(self.shown) < NOTES_SHOWN:
            self.shown.append(_changed(cell, line, text, became))


def _python_lines(lines: list[str], cell: int, changed: _Changes) -> list[str]:
    """The cell's lines, IPython's own syntax made Python (noted in ``changed``)."""
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    out = list(lines)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].strip()[2:].split(maxsplit=1)
        out[first] = _comment(lines[first])
        if not (magic and magic[0] in KEEP_BODY):  # %%bash, %%html...: not Python at all
            out = [_comment(line) if line.strip() and k != first else line for k, line in enumerate(out)]
            changed.append(cell, first + 1, lines[first], Text("整个单元格成了注释", "the whole cell became comments"))
            return out
        changed.append(cell, first + 1, lines[first], Text("成了注释，单元格照常运行一次", "became a comment; the cell runs once"))

    def convert(k: int) -> None:
        line = lines[k]
        out[k] = _converted(line)
        kept = out[k].strip().split("  # ", 1)[0]
        if kept == "pass":
            changed.append(cell, k + 1, line, Text("成了注释", "became a comment"))
        else:
            changed.append(cell, k + 1, line, Text(f"照常运行一次：{kept}", f"runs once as {kept}"))

    ipython = [k for k, line in enumerate(lines) if out[k] == line and _ipython_syntax(line.strip())]
    _at_statement_starts(out, ipython, convert)
    return out


def _ipython_syntax(stripped: str) -> bool:
    return bool(stripped) and not stripped.startswith("#") and (stripped[0] in "%!" or bool(_ASSIGNED_ESCAPE.match(stripped)) or bool(_HELP.match(stripped)) or bool(_GET_IPYTHON.match(stripped)))


def _at_statement_starts(out: list[str], candidates: list[int], found: Callable[[int], None]) -> None:
    """Call ``found(k)`` for each line ``k`` of ``candidates`` (in order)
    that begins a statement: ``out[:k]`` leaves no string or bracket open
    and no line continued by a backslash, and tokenizes without an error.
    ``found`` may rewrite ``out[k]``; the lines after it are read as
    rewritten.

    Most cells are lines that each close all they open: while they do, each
    line's effect is known from the line alone (``_closes_itself``, asked
    once per distinct line: a cell of 100,000 magics has a few distinct
    ones), and only the indentation is followed from line to line. From the
    first line that leaves something open (or dedents to no level seen),
    the tokenizer reads the cell (``_tokenized``) for the candidates left.
    Both say the same of every line; the first only costs less.
    """
    todo = list(reversed(candidates))
    indents = [0]
    for k, line in enumerate(out):
        if not todo:
            return
        if todo[-1] == k:
            found(todo.pop())
            line = out[k]
        if not _indent_fits(line, indents) or not _closes_itself(line):
            break
    if todo:
        _tokenized(out, list(reversed(todo)), found)


def _indent_fits(line: str, indents: list[int]) -> bool:
    """Follow the indentation as Python's tokenizer does from a line that
    begins a statement (tabs to the next multiple of 8, a form feed back to
    0); False where it would raise (a dedent to no level seen)."""
    column = 0
    for ch in line:
        if ch == " ":
            column += 1
        elif ch == "\t":
            column = (column // 8 + 1) * 8
        elif ch == "\f":
            column = 0
        else:
            break
    else:
        return True  # blank: no indentation of its own
    rest = line.lstrip(" \t\f")
    if rest.startswith(("#", "\r")):
        return True
    if column > indents[-1]:
        indents.append(column)
    elif column < indents[-1]:
        if column not in indents:
            return False
        while column < indents[-1]:
            indents.pop()
    return True


@functools.lru_cache(maxsize=4096)
def _closes_itself(line: str) -> bool:
    """Whether ``line``, after lines that leave nothing open, leaves nothing
    open either: what ``_tokenized`` would say of the line after it."""
    depth, ended = 0, 0
    try:
        for token in tokenize.generate_tokens(iter([line + "\n"]).__next__):
            if token.type == tokenize.OP and token.string in ("(", "[", "{"):
                depth += 1
            elif token.type == tokenize.OP and token.string in (")", "]", "}"):
                depth = depth - 1 if depth > 0 or _UNMATCHED_CLOSES else 0
            elif token.type in (tokenize.NEWLINE, tokenize.NL) or (token.type == tokenize.ERRORTOKEN and token.string.endswith("\n")):
                ended = token.end[0]
    except (tokenize.TokenError, SyntaxError, SystemError, StopIteration):
        return False
    return ended == 1 and depth == 0 and not line.rstrip().endswith("\\")


def _tokenized(out: list[str], candidates: list[int], found: Callable[[int], None]) -> None:
    """``_at_statement_starts``, by one tokenizer over the whole cell.

    One tokenizer reads the lines as it asks for them, so the cell is read
    once, not once per candidate (tokenizing ``out[:k]`` anew for each
    candidate made a cell of n IPython lines cost n² lines' tokenizing). It
    asks for line ``k`` once it has given every token of the lines before,
    and those tokens say whether a statement begins: the line before ended
    with its newline as a token (NEWLINE or NL; in Python 3.11 also the
    ERRORTOKEN of a quoted string continued by a backslash and then not
    closed), which no newline inside a string or after a backslash is; the
    brackets counted so far balance; and that line does not end with a
    backslash, even in a comment. Once the tokenizer raises, no later line
    begins a statement: every longer prefix fails the same way."""
    todo = iter(candidates)
    pending = next(todo, None)
    read = 0  # lines given to the tokenizer
    depth = 0  # brackets open
    ended = 0  # the last line (counted from 1) that its newline token ended

    def readline() -> str:
        nonlocal read, pending
        k = read
        if pending is None:
            return ""  # no candidate left: the rest need not be read
        if k == pending:
            if k == 0 or (ended == k and depth == 0 and not out[k - 1].rstrip().endswith("\\")):
                found(k)
            pending = next(todo, None)
        read += 1
        return out[k] + "\n"

    try:
        for token in tokenize.generate_tokens(readline):
            if token.type == tokenize.OP and token.string in ("(", "[", "{"):
                depth += 1
            elif token.type == tokenize.OP and token.string in (")", "]", "}"):
                depth = depth - 1 if depth > 0 or _UNMATCHED_CLOSES else 0
            elif token.type in (tokenize.NEWLINE, tokenize.NL) or (token.type == tokenize.ERRORTOKEN and token.string.endswith("\n")):
                ended = token.end[0]
    except (tokenize.TokenError, SyntaxError, SystemError):
        # The candidates not yet read begin no statement. (SystemError: the
        # tokenizer of Python 3.12 and 3.13 raises it for a null byte after
        # a backslash, where it means its TokenError.)
        pass


def _converted(line: str) -> str:
    """``%time x = f()`` keeps ``x = f()``; other IPython syntax becomes a
    comment, as ``pass`` so that a block it was alone in stays a block."""
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    if stripped.startswith("%") and not stripped.startswith("%%"):
        name, _, rest = stripped[1:].partition(" ")
        if name in KEEP_STATEMENT and rest.strip() and not rest.strip().startswith("-"):
            return f"{indent}{rest.strip()}  # {stripped}"
    return f"{indent}pass  # {stripped}"


def _comment(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}# {line.strip()}"


def _changed(cell: int, line: int, text: str, became: Text) -> Text:
    quoted = visible(text.strip(), name=True)
    quoted = quoted if len(quoted) <= 60 else quoted[:57] + "..."
    return Text(f"第 {cell} 个单元格第 {line} 行 {quoted} {became.zh}", f"cell {cell}, line {line}: {quoted} {became.en}")
