"""Public inputs answered from a table: the teacher's grading must not reward it.

The public checks' inputs are fixed and visible, and the student release ships
their reference answers. A student can therefore record every request the
public checks make, with its answer, and hand in a submission that answers
exactly those requests from a lookup table and computes nothing. In the
student's own run that table is right by construction; when the teacher grades
(``python -m grader grade`` with ``solutions/`` present, ``batch``, the
Gradescope bundle) the checks must use inputs the student has never seen, so
that such a submission earns at most ``TEACHER_LIMIT`` of the points.

The cheat is built here as a student could build it from the release alone:

1. *Record.* A "recorder" submission is the solutions with every exercise
   function, and every module's ``forward``, wrapped: it computes the real
   answer and appends ``key -> answer`` to a JSON-lines file outside its folder
   (so it is graded with the sandbox off, by the release's own command line,
   inside the release: no solutions, recorded reference answers). The key is a
   hash of the function's name and of the dtype, shape and raw bytes of every
   tensor argument (and the value of every other argument); for a module also
   of its train/eval mode and of every parameter's name, dtype, shape and
   bytes at forward time. Only the outermost call is recorded: the requests the
   checks make, not the calls an exercise makes to itself.
2. *Look up.* The lookup submission embeds that table (base64 JSON) in each
   exercise file. Its functions and ``forward`` methods compute the same key
   and return the recorded answer; on inputs not in the table they raise
   ``LookupError``, so every point it earns comes from the table. Its modules
   keep the solutions' constructors and nothing else of them
   (tests/support/lookup_classes.py derives them; a student writes the same from the
   attributes the exercises' docstrings state), so they have the contract's
   parameters, and nothing that computes an answer runs in it.
3. *Grade.* In the release it must score well: the table works, and the
   student's run is reproducible (the recorder's run and the lookup's run are
   two separate runs that made the same requests). Graded the teacher's ways
   (``python -m grader grade`` in the project, ``batch``, the Gradescope
   bundle's ``run_autograder``) it must score at most ``TEACHER_LIMIT`` of the
   total. The solutions graded twice in the release give identical per-check
   results.
"""

import base64
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import lookup_classes
import pytest
from conftest import SOLUTIONS, grade_cli, make_submission, run_cli
from test_release import grade_in_release, in_release

from grader.exercises import BY_ID, EXERCISES, IDS
from grader.teacher.intake import submissions

TEACHER_LIMIT = 0.10  # of the teacher's total: "at most 10/100"
STUDENT_FLOOR = 0.80  # of the release's (public) total: the table really works where it was recorded

# What each exercise file defines, as the checks request it, from the table
# (grader/exercises.py): functions by name (its ``defines`` in lowercase),
# modules by class name (capitalised; ``forward`` answers), other methods as
# Class.method (its ``methods``).
FUNCTIONS = {e.id: [name for name in e.defines if not name[0].isupper()] for e in EXERCISES}
CLASSES = {e.id: [name for name in e.defines if name[0].isupper()] + list(e.methods) for e in EXERCISES}
EXERCISE_OF = {name: ex for table in (FUNCTIONS, CLASSES) for ex, names in table.items() for name in names}

# Shared by the recorder and the lookup submission: the key of a request and
# the encoding of an answer (exact bytes, so -inf and the last bit survive).
KEY_SOURCE = """
import base64 as _base64
import hashlib as _hashlib
import json as _json

import torch as _torch


def _feed(h, obj):
    if isinstance(obj, _torch.Tensor):
        t = obj.detach().contiguous().reshape(-1)
        h.update(f"T{t.dtype}{tuple(obj.shape)}".encode())
        h.update(t.view(_torch.uint8).numpy().tobytes())
    else:
        h.update(f"{type(obj).__name__}:{obj!r}".encode())


def _key(name, args, kwargs=None, module=None):
    h = _hashlib.sha256(name.encode())
    for a in args:
        _feed(h, a)
    for k in sorted(kwargs or {}):
        h.update(k.encode())
        _feed(h, kwargs[k])
    if module is not None:
        h.update(b"train" if module.training else b"eval")
        for pname, p in sorted(module.named_parameters()):
            h.update(pname.encode())
            _feed(h, p)
    return h.hexdigest()


def _encode(t):
    if isinstance(t, tuple):  # (logits, loss)
        return {"tuple": [None if v is None else _encode(v) for v in t]}
    t = t.detach().contiguous()
    raw = t.reshape(-1).view(_torch.uint8).numpy().tobytes()
    return {"dtype": str(t.dtype), "shape": list(t.shape), "data": _base64.b64encode(raw).decode()}


def _decode(entry):
    if "tuple" in entry:
        return tuple(None if v is None else _decode(v) for v in entry["tuple"])
    dtype = getattr(_torch, entry["dtype"].removeprefix("torch."))
    raw = bytearray(_base64.b64decode(entry["data"]))
    if not raw:
        return _torch.empty(entry["shape"], dtype=dtype)
    return _torch.frombuffer(raw, dtype=dtype).reshape(entry["shape"]).clone()
"""

# Appended to a solution file (after KEY_SOURCE and the settings _TABLE_FILE,
# _FUNCTIONS, _CLASSES): wraps what the checks call so that every outermost
# call also appends its key and answer to _TABLE_FILE.
RECORDER_CODE = """
import functools as _functools
import os as _os

_DEPTH = [0]


def _recording(name, fn, method=False):
    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = None
        if _DEPTH[0] == 0:
            key = _key(name, args[1:], kwargs, module=args[0]) if method else _key(name, args, kwargs)
        _DEPTH[0] += 1
        try:
            value = fn(*args, **kwargs)
        finally:
            _DEPTH[0] -= 1
        if key is not None and isinstance(value, (_torch.Tensor, tuple)):
            line = _json.dumps({"key": key, "name": name, "answer": _encode(value)}) + "\\n"
            fd = _os.open(_TABLE_FILE, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o644)
            try:
                _os.write(fd, line.encode())  # one write per line: children of several exercises append
            finally:
                _os.close(fd)
        return value

    return wrapper


for _name in _FUNCTIONS:
    globals()[_name] = _recording(_name, globals()[_name])
for _name in _CLASSES:
    _cls, _, _method = _name.partition(".")
    _method = _method or "forward"
    setattr(globals()[_cls], _method, _recording(_name, getattr(globals()[_cls], _method), method=True))
"""

# The lookup submission (after its imports, KEY_SOURCE and _TABLE): answers from the table only.
LOOKUP_CODE = """

def _answer(name, args, kwargs=None, module=None):
    entry = _TABLE.get(_key(name, args, kwargs, module=module))
    if entry is None:
        raise LookupError(name + ": these inputs are not in my table")
    return _decode(entry)
"""

LOOKUP_FUNCTION = """

def NAME(*args, **kwargs):
    return _answer("NAME", args, kwargs)
"""

# The lookup classes, derived from the solutions by tests/support/lookup_classes.py:
# each class of a row's defines keeps the solution's constructor (so its
# parameters and state_dict are the contract's); forward and the row's
# methods only look up.
LOOKUP_CLASSES = {e.id: lookup_classes.derive(e) for e in EXERCISES}


def lookup_problems() -> list[str]:
    """What the lookup classes could not be derived from (none: []): a class
    of a row's ``defines`` missing from its solution, a method of its
    ``methods`` whose class is not there, a name the kept constructors use
    that no kept import binds (tests/support/lookup_classes.py)."""
    return [problem for derived in LOOKUP_CLASSES.values() for problem in derived.problems]


def recorder_sources(table_file: str) -> dict:
    out = {}
    for ex in IDS:
        with open(os.path.join(SOLUTIONS, ex + ".py"), encoding="utf-8") as f:
            source = f.read()
        settings = f"_TABLE_FILE = {table_file!r}\n_FUNCTIONS = {FUNCTIONS[ex]!r}\n_CLASSES = {CLASSES[ex]!r}\n"
        out[ex] = source + "\n\n# --- recorder ---\n" + KEY_SOURCE + "\n\n" + settings + RECORDER_CODE
    return out


def lookup_sources(table: dict) -> dict:
    """table: exercise id -> {key: encoded answer}."""
    out = {}
    for ex in IDS:
        blob = base64.b64encode(json.dumps(table[ex], sort_keys=True).encode()).decode()
        source = f'"""{ex}: answers looked up in a table of the public checks\' requests; nothing is computed."""\n'
        source += KEY_SOURCE
        source += f'\n\n_TABLE = _json.loads(_base64.b64decode("{blob}"))  # key -> answer\n' + LOOKUP_CODE
        source += "".join(LOOKUP_FUNCTION.replace("NAME", name) for name in FUNCTIONS[ex])
        source += LOOKUP_CLASSES[ex].source  # with the imports its constructors need
        out[ex] = source
    return out


def score(results: dict) -> tuple[float, float]:
    return sum(t["score"] for t in results["tests"]), sum(t["max_score"] for t in results["tests"])


def per_check(results: dict) -> list:
    return [(t["name"], t["tags"], t["score"], t["max_score"], t["status"], t["output"]) for t in results["tests"]]


# - fixtures -


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = tmp_path_factory.mktemp("unseen-release") / "attention"
    proc = run_cli("release", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def recorded(release, tmp_path_factory) -> list:
    """Every request of the public checks, as the release's own grader makes
    them, with the reference's answer: JSON lines {"key", "name", "answer"}."""
    work = tmp_path_factory.mktemp("recorder")
    # It writes outside its folder: no sandbox (the release's default for a
    # student's own copy), into a file any user may write, since a root
    # grader's children run as a user of their own; the file is this test's
    # (the grader removes what that user creates once its exercise ends).
    shared = tempfile.mkdtemp(prefix="recorder-", dir="/tmp")
    table_file = os.path.join(shared, "table.jsonl")
    open(table_file, "w").close()
    os.chmod(table_file, 0o666)
    os.chmod(shared, 0o755)
    folder = make_submission(work / "recorder", recorder_sources(table_file))
    try:
        proc = in_release(release, "grade", folder, "--sandbox", "off", "--json", str(work / "results.json"))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((work / "results.json").read_text(encoding="utf-8"))
        assert results["tests"] and all(t["status"] == "passed" for t in results["tests"]), proc.stdout  # recording changed no answer
        with open(table_file, encoding="utf-8") as f:
            return [json.loads(line) for line in f]
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture(scope="module")
def table(recorded) -> dict:
    """exercise id -> {key: answer}."""
    out: dict = {ex: {} for ex in IDS}
    for entry in recorded:
        book = out[EXERCISE_OF[entry["name"]]]
        assert book.setdefault(entry["key"], entry["answer"]) == entry["answer"], entry["name"]  # one answer per key
    return out


@pytest.fixture(scope="module")
def lookup(table, tmp_path_factory) -> str:
    """The lookup submission's folder."""
    return make_submission(tmp_path_factory.mktemp("lookup") / "lookup", lookup_sources(table))


# - the tests -


def test_every_class_of_the_table_has_a_lookup_constructor():
    assert lookup_problems() == []


def test_what_cannot_be_derived_is_named(tmp_path):
    """A row its solution does not match: each lookup class that cannot be derived is said, and why."""
    (tmp_path / "ex7_gpt.py").write_text(
        "import torch.nn as nn\n\n\ndef width(n):\n    return 4 * n\n\n\n"
        "class GPT(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.lm_head = nn.Linear(n, width(n))\n\n"
        "    def forward(self, idx):\n        return self.lm_head(idx)\n",
        encoding="utf-8",
    )
    row = dataclasses.replace(BY_ID["ex7_gpt"], defines=("GPT", "Sampler"), methods=("GPT.generate", "Writer.draw"))
    derived = lookup_classes.derive(row, solutions=tmp_path)
    assert len(derived.problems) == 4, derived.problems
    for said in ("Writer is not a class of its defines", "defines the class Sampler", "GPT has no generate", "uses width"):
        assert any(said in problem for problem in derived.problems), (said, derived.problems)
    assert "class GPT(nn.Module)" in derived.source and "_answer('GPT.generate'" in derived.source


def test_the_table_covers_every_exercise(recorded, table):
    """Every function and module of every exercise was asked something by the public checks."""
    assert {e["name"] for e in recorded} == set(EXERCISE_OF)
    assert all(table[ex] for ex in IDS)


def test_lookup_scores_where_it_was_recorded(release, lookup, tmp_path):
    """In the student's own setting (the release, its grader, no solutions)
    the table answers the public checks: the cheat is real."""
    results, proc = grade_in_release(release, lookup, tmp_path / "results.json")
    got, total = score(results)
    assert got >= STUDENT_FLOOR * total and got > TEACHER_LIMIT * 100, f"{got:g} / {total:g}\n{proc.stdout}"


def test_students_run_is_reproducible(release, tmp_path):
    """The student's run keeps fixed inputs: the solutions graded twice in
    the release give identical per-check results (and every request finds
    its recorded reference answer)."""
    folder = make_submission(tmp_path / "solutions")
    first, _ = grade_in_release(release, folder, tmp_path / "first.json")
    second, _ = grade_in_release(release, folder, tmp_path / "second.json")
    assert per_check(first) == per_check(second)
    assert all(t["status"] == "passed" for t in first["tests"])


def _grade_with_cli(lookup, tmp_path) -> dict:
    results, _ = grade_cli(lookup)
    return results


def _grade_with_batch(lookup, tmp_path) -> dict:
    klass = tmp_path / "class"
    shutil.copytree(lookup, klass / "cheater")
    out = tmp_path / "out"
    proc = run_cli("batch", str(klass), "--out", str(out), "--jobs", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((out / submissions.safe_name("cheater") / "results.json").read_text(encoding="utf-8"))


def _grade_with_gradescope(lookup, tmp_path) -> dict:
    bundle = tmp_path / "autograder.zip"
    proc = run_cli("gradescope", "--out", str(bundle))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    shutil.copytree(lookup, root / "submission")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AUTOGRADER_ROOT=str(root), PYTHON=sys.executable, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(["bash", str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


TEACHERS = {"grade": _grade_with_cli, "batch": _grade_with_batch, "gradescope": _grade_with_gradescope}


@pytest.mark.parametrize("way", sorted(TEACHERS))
def test_lookup_scores_nothing_when_the_teacher_grades(lookup, tmp_path, way):
    """Graded the teacher's way (solutions and hidden checks present) the
    checks ask what the student never saw: the table earns at most
    TEACHER_LIMIT of the points."""
    results = TEACHERS[way](lookup, tmp_path)
    got, total = score(results)
    # Graded for real, not broken: every exercise, hidden checks included, and the table was consulted.
    assert {t["tags"][0] for t in results["tests"]} == set(IDS)
    assert any(t["tags"][1] == "hidden" for t in results["tests"])
    assert any("LookupError" in t["output"] for t in results["tests"])
    earned = sorted(f"{t['score']:g}  {t['name']}" for t in results["tests"] if t["score"] > 0)
    assert got <= TEACHER_LIMIT * total, f"the table earned {got:g} / {total:g}:\n  " + "\n  ".join(earned)
    # Only the worked examples keep their fixed inputs, and each is worth 1 point.
    assert all(t["max_score"] <= 1 for t in results["tests"] if t["score"] > 0), "\n  ".join(earned)
