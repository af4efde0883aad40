"""Benchmark: reading notebooks up to the size limits (16 MB a notebook,
1 MB of graded code, 10,000 cells), each shaped to cost the reader most,
against a bare ``python -c "import torch"`` in the same run.

Target (issue 32): any notebook up to the limits is read, or refused, in
under 2 s. Processor time of ``grader.handin.notebook_source.read`` alone, in this
process (nbformat imported first).

    python bench/notebook_read.py
"""

import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from grader.handin import notebook_source  # noqa: E402 - after the sys.path line above
from grader.handin.submission import MAX_FILE_BYTES, MAX_NOTEBOOK_BYTES  # noqa: E402 - after the sys.path line above

CODE = MAX_FILE_BYTES - 100


def _nb(cells: list) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


def _code(source, i: int, **extra) -> dict:
    return {"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None, "outputs": [], "source": source, **extra}


def _fill(unit: str) -> str:
    return unit * (CODE // len(unit))


SHAPES = {
    "line magics with brackets": _nb([_code(_fill("%time x = f(1)\n"), 0)]),
    "bare magics": _nb([_code(_fill("%\n"), 0)]),
    "shell escapes": _nb([_code(_fill("!ls\n"), 0)]),
    "help requests": _nb([_code(_fill("torch.softmax?\n"), 0)]),
    "magics inside one bracket": _nb([_code("x = (\n" + _fill("%a\n") + ")", 0)]),
    "magics inside one string": _nb([_code('x = """\n' + _fill("%a\n") + '"""', 0)]),
    "continued lines": _nb([_code(_fill("x = 1 \\\n") + "1", 0)]),
    "10,000 cells of cell magics": _nb([_code("%%time\n" + "x = 1\n" * 10, i) for i in range(notebook_source.MAX_CELLS - 10)]),
    "10,000 cells with outputs": _nb([_code("x = 1", i, outputs=[{"output_type": "stream", "name": "stdout", "text": "a" * 1500}]) for i in range(notebook_source.MAX_CELLS - 10)]),
    "too many markdown cells": _nb([{"cell_type": "markdown", "id": f"m{i}", "metadata": {}, "source": "# t"} for i in range(150_000)]),
    "too much code": _nb([_code("%time x = 1\n" * 1_200_000, 0)]),
}


def _import_torch() -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    notebook_source.read(json.dumps(_nb([_code("x = 1", 0)])).encode(), "warm.ipynb", "ex0_weighted_sum")  # nbformat's import
    imports = sorted(_import_torch() for _ in range(3))
    worst = 0.0
    for name, nb in SHAPES.items():
        data = json.dumps(nb).encode()
        assert len(data) <= MAX_NOTEBOOK_BYTES, (name, len(data))
        start = time.process_time()
        try:
            code = notebook_source.read(data, "n.ipynb", "ex0_weighted_sum", max_code=MAX_FILE_BYTES)
            said = f"read, {len(code.source.splitlines())} lines"
        except notebook_source.NotebookError as exc:
            said = "refused: " + exc.text.en.split(": ", 1)[-1][:50]
        spent = time.process_time() - start
        worst = max(worst, spent)
        print(f"{name:30s} {len(data) / 1e6:5.1f} MB {spent:6.2f} s  {said}")
    print(f"slowest: {worst:.2f} s (target under 2 s) = {worst / imports[1]:.2f}x an import of torch ({imports[1]:.2f} s of processor time)")


if __name__ == "__main__":
    main()
