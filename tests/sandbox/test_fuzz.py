"""Fuzzing the grader with broken submissions: the solution and stub files
mutated at random (lines deleted, duplicated or swapped, tokens and bytes
inserted, huge lines, deep nesting, truncation), and files of random text or
bytes. Whatever the files hold, grading ends with a report: nothing raises,
no grader error, every exercise is graded with all its checks, every score
lies between 0 and its maximum, the report renders and results.json is valid
JSON. An exercise whose file is the untouched solution keeps full marks
(a broken file costs only its own exercise).

Most examples are graded in this process by one ``Grader`` without the
sandbox (and with shorter time limits, so that a mutation that hangs costs
seconds, not minutes); a few go through the command line in the sandbox.
Hypothesis is derandomized: CI sees the same examples every time.
"""

import json
import os
import shutil
import tempfile

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, points_by_exercise, python_m_grader
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from grader.child.limits import Limits
from grader.engine import sandbox as sandbox_mod
from grader.exercises import IDS
from grader.student import report


def _read(folder: str, ex: str) -> bytes:
    with open(os.path.join(folder, ex + ".py"), "rb") as f:
        return f.read()


BASES = {ex: {"solution": _read(SOLUTIONS, ex), "stub": _read(EXERCISES, ex)} for ex in IDS}

# Tokens a careless edit or a bad merge leaves behind.
TOKENS = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    "=",
    "==",
    "**",
    "@",
    "\\",
    "'",
    '"',
    '"""',
    "#",
    "\t",
    "    ",
    "\n",
    "lambda",
    "yield",
    "return",
    "await",
    "async",
    "global x",
    "del torch",
    "raise",
    "pass",
    "None",
    "1/0",
    "...",
    "import os",
    "from . import x",
    "exit()",
    "torch",
    "self",
    "nn.Module",
    "if",
    "else:",
    "\x00",
    "\x0c",
    "λ",
    "🙂",
    "\u200b",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> theirs",
]


def _huge_line(kind: str, n: int) -> bytes:
    return {
        "string": b"x = '" + b"a" * n + b"'\n",
        "comment": b"#" + b"b" * n + b"\n",
        "sum": b"y = " + b"1+" * (n // 2) + b"1\n",
        "name": b"z" * n + b"\n",
    }[kind]


def _nested(kind: str, depth: int) -> bytes:
    if kind == "parens":
        return b"x = " + b"(" * depth + b"1" + b")" * depth + b"\n"
    if kind == "lists":
        return b"x = " + b"[" * depth + b"]" * depth + b"\n"
    if kind == "unclosed":
        return b"x = " + b"(" * depth + b"\n"
    # Indented nesting grows with the square of the depth (100,000 levels
    # would be 20 GB of spaces): 2,000 is far past Python's limit of 20
    # nested blocks, and past the 1 MB the grader reads.
    depth = min(depth, 2000)
    if kind == "blocks":
        return b"".join(b"    " * i + b"if True:\n" for i in range(depth)) + b"    " * depth + b"pass\n"
    # functions nested inside functions
    return b"".join(b"    " * i + f"def f{i}():\n".encode() for i in range(depth)) + b"    " * depth + b"return 1\n"


@st.composite
def mutation(draw, source: bytes) -> bytes:
    lines = source.splitlines(keepends=True) or [b""]
    i = draw(st.integers(0, len(lines) - 1))
    op = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "bytes", "huge", "nested", "truncate"]))
    event(f"mutation: {op}")
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "token":
        token = draw(st.sampled_from(TOKENS) | st.text(max_size=8)).encode("utf-8")
        at = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:at] + token + lines[i][at:]
    elif op == "bytes":
        at = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:at] + draw(st.binary(min_size=1, max_size=16)) + lines[i][at:]
    elif op == "huge":
        kind = draw(st.sampled_from(["string", "comment", "sum", "name"]))
        lines.insert(i, _huge_line(kind, draw(st.sampled_from([10_000, 200_000, 1_100_000]))))
    elif op == "nested":
        kind = draw(st.sampled_from(["parens", "lists", "unclosed", "blocks", "functions"]))
        lines.insert(i, _nested(kind, draw(st.sampled_from([30, 200, 5000, 100_000]))))
    else:
        out = b"".join(lines)
        return out[: draw(st.integers(0, len(out)))]
    return b"".join(lines)


@st.composite
def exercise_file(draw, ex: str) -> tuple[bytes, bool]:
    """A file for exercise ``ex``, and whether it is the untouched solution."""
    kind = draw(st.sampled_from(["solution", "solution", "mutated solution", "mutated solution", "mutated stub", "stub", "text", "bytes"]))
    event(f"file: {kind}")
    if kind == "text":
        return draw(st.text(max_size=400)).encode("utf-8"), False
    if kind == "bytes":
        return draw(st.binary(max_size=400)), False
    source = BASES[ex]["stub" if "stub" in kind else "solution"]
    if not kind.startswith("mutated"):
        return source, kind == "solution"
    for _ in range(draw(st.integers(1, 3))):
        source = draw(mutation(source))
    return source, False


@st.composite
def submission(draw) -> dict:
    """exercise id -> (file bytes, untouched solution?); a missing file now and then."""
    files = {}
    for ex in IDS:
        if draw(st.integers(0, 19)) == 0:
            continue  # not handed in
        files[ex] = draw(exercise_file(ex))
    return files


def _write(files: dict, parent: str) -> str:
    folder = tempfile.mkdtemp(prefix="fuzz-", dir=parent)
    for ex, (data, _) in files.items():
        with open(os.path.join(folder, ex + ".py"), "wb") as f:
            f.write(data)
    return folder


def _check_results(results: dict, files: dict, full_marks: dict) -> None:
    json.loads(json.dumps(results))
    assert "output" not in results, results.get("output")  # a grader error
    by_ex = {ex: [t for t in results["tests"] if t["tags"][0] == ex] for ex in IDS}
    for ex, tests in by_ex.items():
        assert tests, f"{ex} not graded"
        assert sum(t["max_score"] for t in tests) == full_marks[ex], ex
        for t in tests:
            assert 0 <= t["score"] <= t["max_score"], t
            assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed"), t
    points = points_by_exercise(results)
    for ex, (_, untouched) in files.items():
        if untouched:
            assert points[ex] == full_marks[ex], f"{ex}: an untouched solution lost points\n" + "\n".join(t["output"] for t in by_ex[ex] if t["status"] == "failed")
    assert 0 <= results["score"] == sum(points.values()) <= sum(full_marks.values())


@pytest.fixture(scope="module")
def fuzz_grader():
    """One grader, as batch grading uses it, with shorter time limits."""
    from grader.engine.grading import Grader

    g = Grader(limits=Limits(import_seconds=10, request_seconds=4, exercise_seconds=15), sandbox="off", many=True)
    yield g
    g.close()


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz"))


@settings(max_examples=20, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(files=submission())
def test_mutated_submissions_get_a_report(files, fuzz_grader, fuzz_dir, full_marks):
    folder = _write(files, fuzz_dir)
    try:
        grade = fuzz_grader.grade(folder)
        assert not grade.errors, grade.errors
        for r in grade.results:
            assert 0 <= r.points <= r.max_points, r
        report.terminal(grade)
        report.markdown(grade)
        _check_results(report.results_json(grade), files, full_marks)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not sandbox_mod.available(), reason="no sandbox can be made here (bubblewrap and user namespaces)")
@settings(max_examples=3, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(files=submission())
def test_mutated_submissions_through_the_sandboxed_cli(files, fuzz_dir, full_marks):
    folder = _write(files, fuzz_dir)
    out = folder + "-results.json"
    try:
        proc = python_m_grader(["grade", folder, "--json", out, "--sandbox", "require"], cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "总分 / total" in proc.stdout
        with open(out, encoding="utf-8") as f:
            _check_results(json.load(f), files, full_marks)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if os.path.exists(out):
            os.remove(out)
