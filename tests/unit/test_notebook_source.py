"""Reading a handed-in notebook's cells as Python (grader/handin/notebook_source.py):
IPython's lines are found where a statement begins, as tokenizing the lines
before each one says, and reading takes time in proportion to the
notebook's size. (Grading notebooks: test_notebook_submissions.py.)
"""

import io
import json
import os
import random
import subprocess
import sys
import tokenize

import nbformat
from conftest import ROOT

from grader.handin import notebook_source

# Lines that open, close or continue strings, brackets and statements, and
# IPython's lines, indented in ways that do and do not match.
PIECES = [
    "%matplotlib inline", "!ls", "x = !ls", "%time y = 1", "%time x = (1,", "%timeit -n1 f()", "torch.softmax?",
    "get_ipython().run_line_magic('pwd', '')", "%foo \\", "%ls (", "%ls )", "%ls '''", "% 2", "%%capture", "x = 1",
    "s = '''", "'''", 's = """', '"""', "y = (1,", "2)", ")", "]", "{", "}", "z = 1 \\", "+ 2", "if x:", "pass",
    "def f():", "'abc \\", "x = 'abc", "# comment \\", "", "f'{x}'", "f'''{x", "}'''", "x = f'{(1,'", "\\",
    "r'\\'", "x = 1  # %ls", "$", "'''\\", "x = [1,", "%time x = [1,", "3]", "%time }", "f'{x:{w}}'",
]  # fmt: skip
INDENTS = ["", "", "", "    ", "  ", "\t", "        ", " \t"]


def begins_a_statement(before: list[str]) -> bool:
    """The definition: the lines ``before`` tokenize, as a whole, leaving no
    string or bracket open, and the last one is not continued by a backslash."""
    if before and before[-1].rstrip().endswith("\\"):
        return False
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(before) + "\n").readline):
            pass
    except (tokenize.TokenError, SyntaxError):
        return False
    return True


def by_the_definition(lines: list[str]) -> list[str]:
    out = list(lines)
    for k, line in enumerate(lines):
        if notebook_source._ipython_syntax(line.strip()) and begins_a_statement(out[:k]):
            out[k] = notebook_source._converted(line)
    return out


def test_ipython_lines_are_found_where_tokenizing_the_lines_before_finds_a_statement_start():
    """One pass of the tokenizer over a cell finds what tokenizing the lines
    before each IPython line, again and again, finds (the reading before it
    was linear did that), on random cells of lines that open and close
    strings, brackets, blocks and continued lines."""
    rng = random.Random(20240607)
    converted = left = 0
    for _ in range(3000):
        lines = [rng.choice(INDENTS) + rng.choice(PIECES) + rng.choice(["", "", " ", "  \\"]) for _ in range(rng.randint(1, 16))]
        first = next((line for line in lines if line.strip()), "")
        if first.lstrip().startswith("%%"):
            continue  # a cell magic: the whole cell is its body
        expected = by_the_definition(lines)
        assert notebook_source._python_lines(lines, 1, notebook_source._Changes()) == expected, lines
        ipython = [a != b for a, b in zip(lines, expected) if notebook_source._ipython_syntax(a.strip())]
        converted += sum(ipython)
        left += len(ipython) - sum(ipython)
    assert converted > 1000 and left > 1000  # IPython's lines at statement starts, and inside strings and brackets


BLOCK = [
    "%matplotlib inline",
    "!echo hi",
    "x = x + 1",
    "%time y = x % 7",
    "s = '''",
    "%inside a string",
    "!and a shell line",
    "'''",
    "t = (x",
    "% 5)",
    "v = x \\",
    "% 3",
    "if x:",
    "    %time z = x",
    "    %ls",
    "%who",
    "%load_ext autoreload",
    "%autoreload 2",
    "%env",
    "files = !ls",
]
CHANGED_PER_BLOCK = 10  # the lines of BLOCK where a statement begins with IPython's syntax

READ = """
import json, sys, time
from grader.handin import notebook_source

def cost(path, times):
    data = open(path, "rb").read()
    spent = []
    for _ in range(times):
        start = time.process_time()
        code = notebook_source.read(data, "ex0_weighted_sum.ipynb", "ex0_weighted_sum")
        spent.append(time.process_time() - start)
    return min(spent), code

small, big, source = sys.argv[1:]
cost(small, 1)  # nbformat's import, not counted
small_cost, _ = cost(small, 3)
big_cost, code = cost(big, 1)
open(source, "w", encoding="utf-8").write(code.source)
last = len(code.source.splitlines())
print(json.dumps({"small": small_cost, "big": big_cost, "notes": [n.en for n in code.notes], "last": code.where(last).en}))
"""


def many_magics(path, lines: int) -> None:
    """A notebook of ``lines`` lines in one code cell, most of them IPython's,
    with strings, brackets and continued lines that hold lines starting
    with ``%`` and ``!``."""
    assert lines % len(BLOCK) == 0
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 练习 / Exercise"),
        nbformat.v4.new_code_cell("x = 0"),
        nbformat.v4.new_code_cell("\n".join(BLOCK * (lines // len(BLOCK)))),
    ]
    path.write_text(nbformat.writes(nb), encoding="utf-8")


def test_reading_costs_time_in_proportion_to_the_notebook(tmp_path):
    """100,000 lines cost about 10 times what 10,000 cost (a second or two);
    reading that tokenized the lines before each IPython line again took
    100 times as much, 11 s for 2,000 lines and hours for 100,000. Processor
    time, in a process of its own that is stopped when it runs too long."""
    many_magics(tmp_path / "small.ipynb", 10_000)
    many_magics(tmp_path / "big.ipynb", 100_000)
    source = tmp_path / "big.py"
    args = [sys.executable, "-c", READ, str(tmp_path / "small.ipynb"), str(tmp_path / "big.ipynb"), str(source)]
    try:
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=30, env={**os.environ, "PYTHONPATH": ROOT})
    except subprocess.TimeoutExpired:
        raise AssertionError("reading 10,000 and 100,000 lines of a notebook took over 30 s: not linear in its size") from None
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert found["big"] < 30 * found["small"], f"100,000 lines cost {found['big']:.2f} s, 10,000 lines {found['small']:.3f} s"

    # What was read is the notebook's Python: the lines in strings, brackets
    # and continued lines kept, the others comments or the statement they time.
    blocks = 100_000 // len(BLOCK)
    namespace = {}
    exec(compile(source.read_text(encoding="utf-8"), "big.ipynb", "exec"), namespace)
    assert namespace["x"] == namespace["z"] == blocks
    assert (namespace["y"], namespace["t"], namespace["v"]) == (blocks % 7, blocks % 5, blocks % 3)
    assert namespace["s"] == "\n%inside a string\n!and a shell line\n"
    assert found["notes"][0].endswith(f"; {blocks * CHANGED_PER_BLOCK - notebook_source.NOTES_SHOWN} more")
    assert "cell 3, line 1: %matplotlib inline became a comment" in found["notes"][0]
    assert "cell 3, line 4: %time y = x % 7 runs once as y = x % 7" in found["notes"][0]
    assert found["last"] == "ex0_weighted_sum.ipynb, cell 3, line 100000"
