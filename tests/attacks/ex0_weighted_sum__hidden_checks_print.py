"""Attack: read the hidden checks and print them at import (without
flushing), then raise them as the message of an exception from every call:
first the lines a line filter is most likely to let through (comments and
imports), then the rest.

Without the sandbox the files are readable, and the grader replaces every
line of them in what it reports (grader/engine/redact.py): test_attacks.py checks
that no line of a hidden check reaches stdout or results.json, and that the
redaction mark does. In the sandbox there is nothing to read, and the child
says so (its unflushed print must still reach the report). 0 points.
"""
import glob
import os
import sys

import torch

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
TEXTS = {}
for _path in sorted(glob.glob(os.path.join(PROJECT, "checks", "hidden", "*.py"))):
    try:
        with open(_path, encoding="utf-8") as _f:
            TEXTS[os.path.basename(_path)] = _f.read()
    except OSError:
        pass

if TEXTS:
    # The report shows the end of what a child printed: the file with the
    # most comments last.
    for _name in sorted(TEXTS, key=lambda n: n == "test_ex1_averaging.py"):
        print(TEXTS[_name])
else:
    print("no hidden checks readable under", PROJECT)

_lines = [line for text in TEXTS.values() for line in text.splitlines() if line.strip()]
QUOTE = "\n".join(sorted(_lines, key=lambda line: not line.strip().startswith(("#", "import ", "from "))))


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if QUOTE:
        raise RuntimeError("hidden checks:\n" + QUOTE)
    raise RuntimeError("no hidden check found to quote")
