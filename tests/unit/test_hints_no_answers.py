"""No text a check can show a student holds a line of a reference solution.

A hint names the mistake and the idea ("give the weights a dimension of size
1 before T"), never the answer's code: a hint that pasted
``(weights.unsqueeze(-2) @ values).squeeze(-2)`` handed the student the line
to type. Every string the checks and the grader can put into feedback is
read from their source (string constants, implicit and ``+`` concatenations,
the literal parts of f-strings) and compared, spaces ignored, with each line
of every solution region and with its expression (what follows ``return`` or
``name =``).

grader/engine/redact.py guards the other way in (what a submission prints):
it compares whole lines, comments and ``return`` included, so it would not
see an expression pasted into a sentence; hence the finer comparison here.
"""

import ast
import re
from pathlib import Path

from grader.authoring.regions import solution_regions

ROOT = Path(__file__).resolve().parents[2]
# Shorter code is a name or a call any text may mention (scores.shape[-1], nn.Sequential().
MIN_CODE = 18
# Where the texts of feedback live: the checks, and the grader's modules (contract.py's
# diagnoses, the engine's faults); the teacher's tools too, which quote them.
SOURCES = ["checks/public/*.py", "checks/hidden/*.py", "grader/**/*.py"]


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def solution_code(root: Path = ROOT) -> dict[str, str]:
    """squeezed code -> the solution line it comes from: each line of every
    solution region and its expression, comments dropped; code the stubs
    (exercises/) show as well is no secret."""
    given = _squeezed("\n".join(p.read_text(encoding="utf-8") for p in (root / "exercises").glob("*.py")))
    out = {}
    for path in sorted((root / "solutions").glob("*.py")):
        for region in solution_regions(path.read_text(encoding="utf-8")):
            for line in region.splitlines():
                code = line.split("#", 1)[0].strip()
                parts = {code}
                if m := re.match(r"(?:return|yield)\s+(.+)", code):
                    parts.add(m.group(1))
                if m := re.match(r"[\w.,\[\] ]+?\s*[-+*/@]?=\s*(.+)", code):
                    parts.add(m.group(1))
                parts = {part for part in map(_squeezed, parts) if len(part) >= MIN_CODE}
                if not any(part in given for part in parts):  # its expression shown, the line is no secret
                    out.update((part, f"{path.name}: {code}") for part in parts)
    return out


def _text(node) -> str | None:
    """The text of a string expression, with ``{}`` for an f-string's values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    return None


def _docstrings(tree) -> set[int]:
    """ids of the docstrings no student reads: those of modules, classes and
    helpers (a check's docstring is its name in the report, and is read)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if ast.get_docstring(node, clean=False) is not None and not getattr(node, "name", "").startswith("test_"):
                out.add(id(node.body[0].value))
    return out


def texts(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string a module's code could show."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return [(node.lineno, text) for node in ast.walk(tree) if id(node) not in skip and (text := _text(node)) is not None]


def leaks(source: str, code: dict[str, str]) -> list[str]:
    found = []
    for lineno, text in texts(source):
        squeezed = _squeezed(text)
        found += [f"line {lineno}: {text!r} holds {where}" for part, where in code.items() if part in squeezed]
    return found


def test_no_feedback_text_holds_a_solution_line():
    code = solution_code()
    assert len(code) > 50  # every exercise's lines are there to compare
    found = []
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            found += [f"{path.relative_to(ROOT)} {leak}" for leak in leaks(path.read_text(encoding="utf-8"), code)]
    assert not found, "hints that paste the answer's code:\n" + "\n".join(found)


def test_the_catalogue_asks_no_feedback_to_hold_a_solution_line():
    """The words tests/grading/test_catalogue.py wants in a mistake's feedback: none of them is the answer's code."""
    import test_catalogue

    code = solution_code()
    words = [w for entry in test_catalogue.DIAGNOSES for w in entry[2]]
    assert words
    assert not [(w, where) for w in words for part, where in code.items() if part in _squeezed(w)]


def test_a_pasted_line_is_found_however_it_is_written():
    code = {_squeezed("(weights.unsqueeze(-2) @ values).squeeze(-2)"): "ex0", _squeezed("q @ k.transpose(-2, -1) * hs**-0.5"): "ex5"}
    pasted = [
        't("先变形：(weights.unsqueeze(-2) @ values).squeeze(-2)。", "Reshape first.")',  # a t() text
        'HINT = ("Make the weights (B, 1, T): (weights.unsqueeze(-2)@values)"\n    ".squeeze(-2).")',  # split, other spacing
        'msg = f"head {i}: use q @ k.transpose(-2, -1) " + "* hs**-0.5 there"',  # an f-string and a +
        'def test_x():\n    """q @ k.transpose(-2,-1) * hs ** -0.5 / the scores"""',  # a check's name
    ]
    for source in pasted:
        assert leaks(source, code), source
    fine = [
        't("先在 T 前面加一维，变成 (B, 1, T)。", "Give the weights a dimension of size 1 before T.")',
        'def helper():\n    """(weights.unsqueeze(-2) @ values).squeeze(-2), as the reference does"""',  # read by no student
        "wrong = (weights.unsqueeze(-2) @ values).squeeze(-2)",  # code, not text
    ]
    for source in fine:
        assert not leaks(source, code), source


def test_the_solutions_lines_are_read_with_their_expressions(tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions" / "ex9.py").write_text(
        "def f(w, v):\n    # BEGIN SOLUTION\n    out = (w.unsqueeze(-2) @ v).squeeze(-2)  # (B, C)\n    return torch.softmax(out, dim=-1)\n    x = nn.LayerNorm(n_embd)\n    # END SOLUTION\n",
        encoding="utf-8",
    )
    (tmp_path / "exercises" / "ex9.py").write_text('"""ln = nn.LayerNorm(n_embd), as the contract says"""\n', encoding="utf-8")
    code = solution_code(tmp_path)
    assert "(w.unsqueeze(-2)@v).squeeze(-2)" in code and "torch.softmax(out,dim=-1)" in code
    assert not any("LayerNorm" in part for part in code)  # the stub shows it: no secret
