"""Exercise stubs are made from the solutions, so the two cannot drift apart.

Each solution marks what the student writes with ``# BEGIN SOLUTION`` and
``# END SOLUTION``; the stub keeps everything else (signature, docstring,
imports) and puts a TODO and ``raise NotImplementedError`` in each region.

    python -m grader.teacher.stubs           # rewrite exercises/ from solutions/
    python -m grader.teacher.stubs --check   # fail if exercises/ is out of date
"""

import argparse
import os
import re
import sys

from grader.authoring.regions import BEGIN, END
from grader.exercises import IDS
from grader.files import EXERCISES_DIR, SOLUTIONS

_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+(\w+)")


def _owner(lines: list[str], index: int, indent: int) -> str:
    """The qualified name of the function a region sits in, e.g. ``Head.forward``."""
    names, limit = [], indent
    for line in reversed(lines[:index]):
        m = _DEF.match(line)
        if m and len(m.group(1)) < limit:
            names.append(m.group(3))
            limit = len(m.group(1))
            if limit == 0:
                break
    return ".".join(reversed(names)) or "<module>"


def make_stub(source: str, exercise_id: str) -> str:
    lines = source.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == BEGIN:
            indent = len(line) - len(line.lstrip())
            pad = line[:indent]
            name = _owner(lines, i, indent)
            j = i + 1
            while j < len(lines) and lines[j].strip() != END:
                j += 1
            if j == len(lines):
                raise ValueError(f"{exercise_id}: {BEGIN} at line {i + 1} has no {END}")
            out.append(f"{pad}# TODO({exercise_id}): 在这里写你的代码 / write your code here\n")
            out.append(f'{pad}raise NotImplementedError("{exercise_id}: {name} 尚未完成 / not implemented yet")\n')
            i = j + 1
            continue
        if line.strip() == END:
            raise ValueError(f"{exercise_id}: {END} at line {i + 1} has no {BEGIN}")
        out.append(line)
        i += 1
    return "".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.teacher.stubs", description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="only report stubs that are out of date")
    p.add_argument("--solutions", default=SOLUTIONS)
    p.add_argument("--out", default=EXERCISES_DIR)
    args = p.parse_args(argv)
    stale = []
    for ex in IDS:
        with open(os.path.join(args.solutions, ex + ".py"), encoding="utf-8") as f:
            stub = make_stub(f.read(), ex)
        target = os.path.join(args.out, ex + ".py")
        current = open(target, encoding="utf-8").read() if os.path.exists(target) else None
        if current != stub:
            stale.append(target)
            if not args.check:
                os.makedirs(args.out, exist_ok=True)
                with open(target, "w", encoding="utf-8") as f:
                    f.write(stub)
    if args.check and stale:
        print("out of date (run python -m grader.teacher.stubs):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
