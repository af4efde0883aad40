"""Mutation testing: would the checks notice if the reference were wrong?

Each mutant is a copy of ``solutions/`` with one small change in one
exercise's file, the kind of change a student's mistake makes. It is graded
as a teacher's grading grades (every check, hidden ones included, on unseen
inputs), and it is *killed* when its exercise scores below full marks (a
file that no longer imports, or runs out of time, scores 0). A mutant that
keeps full marks *survives*: either the checks miss a mistake (a gap to
close in ``checks/``), or the change makes no difference on any input the
stub's docstring allows (an *equivalent* mutant, listed with its reason in
``checks/equivalent_mutants.toml``). Every survivor not in that list is
printed with its file, line, operator and change.

    python bench/mutation.py [--exercise ID] [--sample N] [--inputs-seed N] [--json FILE] [--list]

Mutants are made by cosmic-ray (PyPI ``cosmic-ray``): its operators find
the places to change in a file's parso tree and write the changed source
(``cosmic_ray.mutating.mutate_code``), counting places in the order its own
``init`` does, so each mutant is what ``cosmic-ray init`` would list. Its
core operators used here (``CORE_OPERATORS``):

- ``NumberReplacer`` (a number +1 and -1: ``hs**-0.5`` -> ``hs**-1.5``,
  ``== 0`` -> ``== 1``, a default rate 0.0 -> 1.0);
- binary operators among ``+ - * / // % **``, each into each other
  (``x + self.sa(...)`` -> ``x - ...``, ``//`` -> ``/``); the bitwise and
  shift operators are left out as targets: on tensors and floats they only
  raise, and nothing in the solutions is bitwise;
- comparisons, unary operators (``~tril`` -> ``tril``, ``-0.5`` -> ``0.5``),
  ``True``/``False``, ``and``/``or``, ``not`` added to a condition
  (``if targets is None``), ``break``/``continue``, a decorator removed
  (``@torch.no_grad()``), a ``for`` loop run zero times.

Left out: ``ExceptionReplacer`` (no ``try`` in the solutions), and
``VariableReplacer``/``VariableInserter`` (they need a variable named in
advance and put random constants in: not reproducible).

The PyTorch operators are cosmic-ray's own plugin, ``bench/torch_mutations``
(an operator provider registered under ``cosmic_ray.operator_providers``,
installed by tox's test environment): dims swapped, tril/triu, softmax,
transpose, masked_fill, dropout and submodules left out, the mask's value
and direction, ``.detach()`` on a result, defaults and flags, ``@`` and
``*``. They come first, so when two operators make the same program (same
Python AST) the mutant is the PyTorch operator's and the other is counted
as a duplicate. Mutants that change nothing (same AST) or do not compile
are counted apart, never graded.

Only code is mutated (docstrings are strings, which no operator changes):
mostly the students' regions (``# BEGIN SOLUTION`` .. ``# END SOLUTION``),
and also the code a stub gives (signatures with their defaults, decorators),
which a student can change too; each mutant says which (``where``).

Why not cosmic-ray's own session and runner: it writes each mutant into the
file and runs a test command per mutant, a new process each time, and a
grading process costs seconds (torch's import, pytest's start, collecting
the checks). Here one long-lived grader (``Grader.grade_each``, as a batch
worker grades a class) grades every mutant of an exercise in one pytest
session, each in its own child like any submission, so the whole run costs
about what a batch of that many students costs, and the verdict is the
grader's own, hidden checks included.

A mutant's id (``Mutant.id``) is its exercise, operator and changed line
before and after (comments dropped, white space collapsed), so an entry in
``checks/equivalent_mutants.toml`` survives edits elsewhere in the file;
``nth`` tells apart the same change made at two places of one file.
"""

import argparse
import ast
import difflib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from dataclasses import asdict, dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from grader.authoring.regions import BEGIN, END  # noqa: E402 - after the sys.path line above
from grader.exercises import IDS  # noqa: E402 - after the sys.path line above

SOLUTIONS = os.path.join(ROOT, "solutions")
EQUIVALENTS = os.path.join(ROOT, "checks", "equivalent_mutants.toml")
# The inputs the project's tests grade with (tests/conftest.py), so that a
# run can be repeated; --inputs-seed draws others.
DEFAULT_INPUTS_SEED = 20261130

ARITHMETIC = ("Add", "Sub", "Mul", "Div", "FloorDiv", "Mod", "Pow")
CORE_OPERATORS = (
    "core/NumberReplacer",
    *(f"core/ReplaceBinaryOperator_{a}_{b}" for a in ARITHMETIC for b in ARITHMETIC if a != b),
    "core/ReplaceComparisonOperator_*",
    "core/ReplaceUnaryOperator_*",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/AddNot",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
    "core/RemoveDecorator",
    "core/ZeroIterationForLoop",
)
PLUGIN = "torch"  # bench/torch_mutations registers its provider under this name


@dataclass
class Mutant:
    exercise: str
    operator: str  # cosmic-ray's name: "core/NumberReplacer", "torch/SwapDim"
    occurrence: int  # cosmic-ray's occurrence of the operator in the file
    line: int  # the first line it changes, in solutions/<exercise>.py
    before: str  # the changed lines of the reference, comments dropped, white space collapsed ("" for none)
    after: str  # the same lines in the mutant
    where: str  # "solution": inside a BEGIN/END SOLUTION region; "stub": code the stub gives
    diff: str  # unified diff, no context
    source: str = field(repr=False, default="")
    nth: int = 1  # the how-many-th mutant with this exercise, operator, before and after

    @property
    def id(self) -> str:
        return "|".join([self.exercise, self.operator, self.before, self.after] + ([str(self.nth)] if self.nth > 1 else []))

    @property
    def file(self) -> str:
        return f"solutions/{self.exercise}.py"


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # "killed", "survived", "equivalent" (survived, and listed) or "error" (the grader failed)
    points: float = 0.0
    max_points: float = 0.0
    reason: str = ""  # the list's reason, for an equivalent mutant; the error, for an error


# --- making mutants ----------------------------------------------------------------


def operator_names() -> list[str]:
    """The operators used, PyTorch's first: every operator of the plugin, then ``CORE_OPERATORS``."""
    import cosmic_ray.plugins

    names = cosmic_ray.plugins.operator_names()
    if PLUGIN not in cosmic_ray.plugins.OPERATOR_PROVIDERS:
        raise SystemExit("the PyTorch operators are not installed: pip install -e bench/torch_mutations (tox's test environment has them)")
    chosen = [n for n in names if n.startswith(PLUGIN + "/")]
    for pattern in CORE_OPERATORS:
        if pattern.endswith("*"):
            found = [n for n in names if n.startswith(pattern[:-1])]
        else:
            found = [n for n in names if n == pattern]
        if not found:
            raise SystemExit(f"cosmic-ray has no operator {pattern}")
        chosen += found
    return chosen


def _code_lines(source: str) -> list[str]:
    """The file's lines with comments dropped and white space collapsed."""
    lines = source.split("\n")
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col]
    except (tokenize.TokenError, SyntaxError):
        pass
    return [" ".join(line.split()) for line in lines]


def _region_lines(source: str) -> set[int]:
    """The line numbers (from 1) inside the solution regions."""
    inside, found = False, set()
    for number, line in enumerate(source.split("\n"), 1):
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside:
            found.add(number)
    return found


def _change(original: str, mutated: str) -> tuple[int, str, str, str]:
    """The first changed line (from 1), the changed code before and after, and the unified diff."""
    a, b = _code_lines(original), _code_lines(mutated)
    opcodes = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if opcodes:
        _, i1, i2, j1, j2 = opcodes[0]
        i2, j2 = max(i2, opcodes[-1][2]), max(j2, opcodes[-1][4])
        before, after = " / ".join(x for x in a[i1:i2] if x), " / ".join(x for x in b[j1:j2] if x)
        # The first line with code: an operator that removes a node takes the comments and blank lines before it along.
        line = next((i for i in range(i1, i2) if a[i]), i1) + 1
    else:  # only a comment or white space changed
        line, before, after = 0, "", ""
    diff = "\n".join(difflib.unified_diff(original.split("\n"), mutated.split("\n"), "a/solutions", "b/solutions", n=0, lineterm=""))
    return line, before, after, diff


@dataclass
class Made:
    """What the operators made of one exercise's file."""

    mutants: list = field(default_factory=list)
    unchanged: int = 0  # the same program (AST) as the reference
    not_compiling: int = 0
    duplicates: int = 0  # the same program as an earlier operator's mutant


def make_mutants(exercise: str, source: str | None = None, operators: list[str] | None = None) -> Made:
    """Every mutant of ``solutions/<exercise>.py`` (or of ``source``) by the chosen operators."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    if source is None:
        with open(os.path.join(SOLUTIONS, exercise + ".py"), encoding="utf-8") as f:
            source = f.read()
    reference = ast.dump(ast.parse(source))
    region = _region_lines(source)
    made, seen, counts = Made(), set(), {}
    for name in operators or operator_names():
        operator = cosmic_ray.plugins.get_operator(name)()
        places = sum(1 for node in ast_nodes(get_ast(source)) for _ in operator.mutation_positions(node))
        for occurrence in range(places):
            mutated = mutate_code(source, operator, occurrence)
            if mutated is None:
                continue
            try:
                compile(mutated, exercise + ".py", "exec")
                program = ast.dump(ast.parse(mutated))
            except (SyntaxError, ValueError):
                made.not_compiling += 1
                continue
            if program == reference:
                made.unchanged += 1
                continue
            if program in seen:
                made.duplicates += 1
                continue
            seen.add(program)
            line, before, after, diff = _change(source, mutated)
            key = (name, before, after)
            counts[key] = counts.get(key, 0) + 1
            made.mutants.append(Mutant(exercise, name, occurrence, line, before, after, "solution" if line in region else "stub", diff, mutated, counts[key]))
    return made


def sample(mutants: list, n: int | None) -> list:
    """``n`` mutants, the same ones whenever the mutants are the same (ordered by a hash of their id); all without ``n``."""
    if n is None or n >= len(mutants):
        return list(mutants)
    return sorted(mutants, key=lambda m: hashlib.sha256(m.id.encode("utf-8")).hexdigest())[:n]


# --- the list of equivalent mutants ---------------------------------------------------


def load_equivalents(path: str = EQUIVALENTS) -> list[dict]:
    """The entries of ``checks/equivalent_mutants.toml``, each with exercise, operator, before, after, reason (nth: 1 unless said)."""
    import tomllib

    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        entries = tomllib.load(f).get("equivalent", [])
    out = []
    for entry in entries:
        missing = {"exercise", "operator", "before", "after", "reason"} - set(entry)
        if missing:
            raise ValueError(f"{path}: an entry lacks {sorted(missing)}: {entry}")
        out.append({**entry, "before": " ".join(entry["before"].split()), "after": " ".join(entry["after"].split()), "nth": entry.get("nth", 1)})
    return out


def entry_id(entry: dict) -> str:
    return "|".join([entry["exercise"], entry["operator"], entry["before"], entry["after"]] + ([str(entry["nth"])] if entry["nth"] > 1 else []))


# --- grading ---------------------------------------------------------------------------


def verdict(grade, mutant: Mutant, full: float, equivalents: dict) -> Outcome:
    """What a grading of ``mutant`` says: killed below ``full`` points on its exercise; else equivalent where listed, else survived."""
    if isinstance(grade, BaseException):
        return Outcome(mutant, "error", reason=f"{type(grade).__name__}: {grade}")
    if grade.errors:
        return Outcome(mutant, "error", reason=grade.errors[0][:2000])
    got, most = grade.exercise_points(mutant.exercise)
    if got < full:
        return Outcome(mutant, "killed", got, most)
    entry = equivalents.get(mutant.id)
    if entry is not None:
        return Outcome(mutant, "equivalent", got, most, entry["reason"])
    return Outcome(mutant, "survived", got, most)


def _submission(folder: str, mutant: Mutant) -> str:
    """A copy of the solutions with the mutant's file in place of its exercise's (as tests/conftest.py's make_submission)."""
    os.makedirs(folder)
    for ex in IDS:
        shutil.copy(os.path.join(SOLUTIONS, ex + ".py"), os.path.join(folder, ex + ".py"))
    with open(os.path.join(folder, mutant.exercise + ".py"), "w", encoding="utf-8") as f:
        f.write(mutant.source)
    return folder


def full_marks(grader) -> dict:
    """Each exercise's points for the reference itself, which must be its maximum (else the checks are broken)."""
    grade = grader.grade(SOLUTIONS)
    out = {}
    for ex in IDS:
        got, most = grade.exercise_points(ex)
        if got < most or grade.errors:
            raise RuntimeError(f"the solutions score {got}/{most} in {ex} with these inputs: mutants cannot be judged\n{grade.errors}")
        out[ex] = most
    return out


def grade_mutants(grader, mutants: list, full: dict, equivalents: dict | None = None, progress=None) -> list[Outcome]:
    """Grade every mutant through ``grader``, one pytest session per exercise (``grade_each``)."""
    from grader.engine.grading import Job

    equivalents = {entry_id(e): e for e in (load_equivalents() if equivalents is None else equivalents)}
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:

        def on_grade(job, grade):
            shutil.rmtree(job.path, ignore_errors=True)
            outcomes.append(verdict(grade, job.key, full[job.key.exercise], equivalents))
            if progress:
                progress(outcomes[-1])

        for ex in IDS:
            mine = [m for m in mutants if m.exercise == ex]
            if mine:
                jobs = (Job(_submission(os.path.join(tmp, str(i)), m), key=m) for i, m in enumerate(mine))
                grader.grade_each(jobs, on_grade, only=ex)
    return outcomes


# --- the report -----------------------------------------------------------------------


def commit() -> str:
    """The commit graded (``git describe --always --dirty``), so a run says which checks it measured."""
    try:
        proc = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except OSError:
        return "unknown"
    return proc.stdout.strip() or "unknown"


def table(outcomes: list[Outcome], made: dict) -> list[dict]:
    rows = []
    for ex in IDS:
        if ex not in made:
            continue
        mine = [o for o in outcomes if o.mutant.exercise == ex]
        count = {v: sum(o.verdict == v for o in mine) for v in ("killed", "survived", "equivalent", "error")}
        rows.append(
            {
                "exercise": ex,
                "mutants": len(mine),
                **count,
                "unchanged": made[ex].unchanged,
                "not_compiling": made[ex].not_compiling,
                "duplicates": made[ex].duplicates,
                "made": len(made[ex].mutants),
            }
        )
    return rows


def print_report(rows: list[dict], outcomes: list[Outcome], seconds: float, seed: int, out=None) -> None:
    out = out or sys.stdout
    columns = ("exercise", "mutants", "killed", "survived", "equivalent", "error", "unchanged", "not_compiling", "duplicates")
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in columns]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)), file=out)
    for r in rows + [{c: (sum(r[c] for r in rows) if c != "exercise" else "total") for c in columns}]:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(columns, widths)), file=out)
    graded = [o for o in outcomes if o.verdict != "error"]
    killed = sum(o.verdict == "killed" for o in graded)
    if graded:
        score = killed / max(1, sum(o.verdict != "equivalent" for o in graded))
        print(f"\nkilled {killed} of {len(graded)} graded ({score:.1%} of those not listed as equivalent); inputs seed {seed}; {seconds:.0f} s; commit {commit()}", file=out)
    for title, kind in (("equivalent (checks/equivalent_mutants.toml)", "equivalent"), ("errors of the grader", "error"), ("SURVIVORS", "survived")):
        chosen = [o for o in outcomes if o.verdict == kind]
        if not chosen:
            continue
        print(f"\n{title}: {len(chosen)}", file=out)
        for o in chosen:
            m = o.mutant
            print(f"  {m.file}:{m.line} [{m.where}] {m.operator}", file=out)
            if kind == "survived":
                for line in shown_diff(m):
                    print(f"      {line}", file=out)
            else:
                print(f"      - {m.before}\n      + {m.after}\n      {o.reason.splitlines()[0] if o.reason else ''}", file=out)


def shown_diff(mutant: Mutant) -> list[str]:
    """The mutant's diff lines without the headers, and without lines that are only a comment or blank (an
    operator that removes a node takes the comments before it along)."""
    lines = [x for x in mutant.diff.split("\n") if not x.startswith(("---", "+++", "@@"))]
    code = [x for x in lines if x[1:].strip() and not x[1:].strip().startswith("#")]
    return code or lines


def as_json(rows, outcomes, seconds, seed) -> dict:
    return {
        "commit": commit(),
        "inputs_seed": seed,
        "seconds": round(seconds, 1),
        "exercises": rows,
        "mutants": [
            {**{k: v for k, v in asdict(o.mutant).items() if k != "source"}, "id": o.mutant.id, "verdict": o.verdict, "points": o.points, "max_points": o.max_points, "reason": o.reason}
            for o in outcomes
        ],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exercise", choices=IDS, help="only this exercise's mutants")
    parser.add_argument("--sample", type=int, metavar="N", help="N mutants per exercise, the same N every run")
    parser.add_argument("--inputs-seed", type=int, default=DEFAULT_INPUTS_SEED, metavar="N", help="the checks' inputs (default: the project tests')")
    parser.add_argument("--json", metavar="FILE", help="write the results here too")
    parser.add_argument("--list", action="store_true", help="list the mutants, grade nothing")
    args = parser.parse_args(argv)
    exercises = [args.exercise] if args.exercise else list(IDS)
    start = time.monotonic()
    grader = None
    if not args.list:
        # Made before anything reads the solutions: its zygote, which children are forked from, must not hold them.
        from grader.engine.grading import Grader

        grader = Grader(many=True, inputs_seed=args.inputs_seed, sandbox="off")
    try:
        names = operator_names()
        made = {ex: make_mutants(ex, operators=names) for ex in exercises}
        chosen = [m for ex in exercises for m in sample(made[ex].mutants, args.sample)]
        if args.list:
            for m in chosen:
                print(f"{m.file}:{m.line} [{m.where}] {m.operator}\n    - {m.before}\n    + {m.after}")
            print(f"{len(chosen)} mutants")
            return 0
        full = full_marks(grader)
        done = [0]

        def progress(outcome):
            done[0] += 1
            if sys.stderr.isatty():
                print(f"\r{done[0]}/{len(chosen)} graded", end="", file=sys.stderr, flush=True)

        outcomes = grade_mutants(grader, chosen, full, progress=progress)
        if sys.stderr.isatty():
            print(file=sys.stderr)
    finally:
        if grader is not None:
            grader.close()
    seconds = time.monotonic() - start
    rows = table(outcomes, made)
    print_report(rows, outcomes, seconds, args.inputs_seed)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(as_json(rows, outcomes, seconds, args.inputs_seed), f, indent=2, ensure_ascii=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
