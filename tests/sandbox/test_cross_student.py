"""Cross-student isolation in a batch: what one student's code does to the
grader cannot change another student's grade.

A class of four is graded with ``python -m grader batch --jobs 1``, so that
one worker (one grader, one zygote) grades them all, in sorted id order:

- ``a_attacker`` first: each of its exercise files runs, at import,
  every attack of ``ATTACKS`` on the zygote and the grading process (ptrace,
  /proc/PID/mem, pidfd_getfd of their sockets, process_vm_readv, renicing
  them, lowering their limits with prlimit; the code of the attack files in
  tests/attacks/), then leaves state behind (``LEAVE``: files in /tmp and
  /dev/shm, a 0555 folder in /tmp, a file in its TMPDIR, a SysV shared memory
  segment, a POSIX message queue; and its answers, for a later student to
  load, in ``STASHES``: nested folders of its own below root's sticky
  world-writable folders, and files straight in them), then the solution of
  the exercise;
- ``b_right``: the solutions;
- ``c_stubs``: the untouched stubs of exercises/, each also loading at import
  the attacker's answer that it finds in ``STASHES`` left by its own user
  (``LOAD``; where the mode promises that nothing is left: the sandbox, root
  without namespaces);
- ``d_mistakes``: one typical mistake per exercise (``MISTAKES``, the files
  of tests/catalogue/wrong/ marked ``cross-student``), each file also looking, at import, for what the
  attacker left behind and for a changed priority (``FIND``): it prints what
  it finds and raises (so that it shows in results.json) if it finds what
  must be gone in the mode graded.

With the sandbox (``--sandbox require``) and without (``--sandbox off``), the
test asserts that

1. the batch grades all four, in that order, with one worker that is never
   replaced (no process target started twice by the batch);
2. every attack was refused (the attack files' own ``REACHED``; an attack
   that worked makes the attacker's file raise) and the attacker's own
   answers count: 100 points;
3. b_right, c_stubs and d_mistakes get, check by check (tags, name, status,
   score, max score, visibility, feedback), exactly what each gets graded alone
   (``python -m grader grade``) with the same ``--inputs-seed``;
4. d_mistakes found nothing: in the sandbox nothing at all; without it only
   the exercise's own TMPDIR and the priority are checked (/tmp, /dev/shm,
   SysV IPC and message queues are then the machine's, shared and not
   cleaned: the test removes its leftovers there afterwards);
5. in the sandbox and as root without it, none of the attacker's answers is
   left once the batch is over, and c_stubs loaded none (0 points, as alone).

The students' folders sit in one class folder; graded alone, each is named
relative to it (as the batch names it), and absolute paths under the test's
folder are replaced before comparing. The batch and the three gradings alone
run at the same time (separate processes, separate graders).

Every grading runs as ``python -m grader ARGS`` through a small prelude
(``GRADER``) that sets its priority to ``NICE`` and names on stderr each
process the grading process starts with multiprocessing. ``NICE`` is the
test's own priority, or 18 where the test runs at 19 (the renice attack sets
19, which would otherwise change nothing and could not be seen); where 18 is
not allowed either, the renice attack still runs but cannot be judged.
"""

import concurrent.futures
import csv
import ctypes
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest
from catalogue_marks import marked
from conftest import EXERCISES, ROOT, SOLUTIONS, TEST_INPUTS_SEED

from grader.child import child_user
from grader.engine import sandbox as sandbox_mod
from grader.exercises import IDS

ATTACKS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "attacks")
WRONG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "catalogue", "wrong")

# Section 1 of the issue: what a student's code may try on the zygote and the grader.
ATTACKS = [
    "ex0_weighted_sum__ptrace_zygote",
    "ex0_weighted_sum__proc_mem_zygote",
    "ex0_weighted_sum__pidfd_getfd_zygote",
    "ex0_weighted_sum__process_vm_read_zygote",
    "ex0_weighted_sum__renice_zygote",
    "ex0_weighted_sum__lower_zygote_limits",
]

# One usual mistake per exercise (each loses points in its own exercise only):
# the files marked "cross-student" (tests/support/catalogue_marks.py).
MISTAKES = marked("cross-student")

# Sorted ids: the batch hands students out in this order.
ATTACKER, RIGHT, STUBS, MISTAKEN = "a_attacker", "b_right", "c_stubs", "d_mistakes"
ALONE = (RIGHT, STUBS, MISTAKEN)

MODES = {"sandbox": "require", "off": "off"}

# Root without namespaces: children run as a user of their own, and what it
# leaves is removed (grader/child/leftovers.py: clear_owned).
OWN_USER = child_user.wanted(False) and child_user.probe(child_user.interpreter_paths(), []).user is not None

TAG = "xstudent_3b9d1"  # names of what the attacker leaves (not test_clean_start's: they may run at once)
SHM_KEY = 0x3B9D
MARK = "LEFTOVERS FOUND"


def _base_nice() -> int:
    """The priority the gradings run at, and every process they start
    inherits. The renice attack sets 19; where the test itself already runs
    at 19 (some CI machines do) it is run one step higher, at 18, if that is
    allowed, so that the attack would show."""
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if own < 19:
        return own
    probe = subprocess.run(
        [sys.executable, "-c", "import os; os.setpriority(os.PRIO_PROCESS, 0, 18); print(os.getpriority(os.PRIO_PROCESS, 0))"],
        capture_output=True,
        text=True,
    )
    return int(probe.stdout) if probe.returncode == 0 else own


NICE = _base_nice()
# At 19 a renice to 19 changes nothing: the attack cannot be seen (nor judged).
RENICE_VISIBLE = NICE < 19

# Root's sticky world-writable folders (mode 1777) as a machine has them
# (systemd makes /tmp/.X11-unix and /tmp/.ICE-unix on every boot), made by
# the test where missing (as root only); the last inside a folder only root
# may write, where only a walk of the machine finds it.
STICKY = ("/tmp/.X11-unix", "/tmp/.ICE-unix", f"/var/tmp/{TAG}_sticky", f"/dev/shm/{TAG}_sticky", f"/tmp/{TAG}_machine/drop")
# Where the attacker leaves each exercise's answers for a later student's
# code to load ({ex}: the exercise): nested folders of its own, and files
# straight in root's folders.
STASHES = (
    f"/tmp/.X11-unix/{TAG}/a/b/{{ex}}.py",
    f"/tmp/.ICE-unix/{TAG}_{{ex}}.py",
    f"/var/tmp/{TAG}_sticky/{TAG}/deep/er/{{ex}}.py",
    f"/dev/shm/{TAG}_sticky/{TAG}_{{ex}}.py",
    f"/tmp/{TAG}_machine/drop/{TAG}/x/{{ex}}.py",
)

LEAVE = f'''
# ---- leave state behind for whoever is graded next
STASHES = {STASHES!r}
import ctypes as _ct, os as _os, tempfile as _tf
for _dir in ("/tmp", "/dev/shm"):
    try:
        with open(_os.path.join(_dir, "{TAG}"), "w") as _f:
            _f.write("hidden inputs were here")
    except OSError:
        pass
try:
    _os.makedirs("/tmp/{TAG}_ro/inner", exist_ok=True)
    open("/tmp/{TAG}_ro/inner/file", "w").close()
    _os.chmod("/tmp/{TAG}_ro/inner", 0o555)
    _os.chmod("/tmp/{TAG}_ro", 0o555)
except OSError:
    pass
with open(_os.path.join(_tf.gettempdir(), "{TAG}_tempfile"), "w") as _f:
    _f.write("x")
_libc = _ct.CDLL(None, use_errno=True)
_libc.shmget({SHM_KEY}, 4096, 0o1666)  # IPC_CREAT | 0666
_libc.mq_open.restype = _ct.c_int
_libc.mq_open(b"/{TAG}", _os.O_CREAT | _os.O_RDWR, 0o600, None)
# the answers of this exercise, for a later student's to load: in folders of
# its own below root's sticky world-writable folders, and straight in them
_src = open(__file__, encoding="utf-8").read()
_answer = _src.rsplit("# ---- the solution" + " of ", 1)[1].split("\\n", 1)[1]
_ex = _os.path.basename(__file__)[: -len(".py")]
for _path in STASHES:
    _path = _path.format(ex=_ex)
    try:
        _os.makedirs(_os.path.dirname(_path), exist_ok=True)
        with open(_path, "w") as _f:
            _f.write(_answer)
        _os.chmod(_path, 0o644)
    except OSError:
        pass
'''


def find_code(strict: bool) -> str:
    """Appended to each of d_mistakes' files: what it finds of the attacker.
    ``strict``: everything found counts (the sandbox); else only the
    exercise's own TMPDIR and the priority, the places that are private
    without the sandbox too."""
    return f'''

# ---- look for what an earlier student left behind
import ctypes as _ct, os as _os, tempfile as _tf
_found = []
for _path in ("/tmp/{TAG}", "/dev/shm/{TAG}", "/tmp/{TAG}_ro", _os.path.join(_tf.gettempdir(), "{TAG}_tempfile")):
    if _os.path.exists(_path):
        _found.append(_path)
try:
    with open("/proc/sysvipc/shm") as _f:
        if any(_row.split()[0] == str({SHM_KEY}) for _row in _f.read().splitlines()[1:]):
            _found.append("shm {SHM_KEY}")
except OSError:
    pass
_libc = _ct.CDLL(None, use_errno=True)
_libc.mq_open.restype = _ct.c_int
if _libc.mq_open(b"/{TAG}", _os.O_RDONLY) >= 0:
    _found.append("mqueue /{TAG}")
if _os.getpriority(_os.PRIO_PROCESS, 0) != {NICE}:
    _found.append("nice " + str(_os.getpriority(_os.PRIO_PROCESS, 0)))
print("FOUND:", sorted(_found))
_counted = _found if {strict} else [_x for _x in _found if _x.endswith("_tempfile") or _x.startswith("nice ")]
if _counted:
    raise RuntimeError("{MARK}: " + repr(sorted(_counted)))
'''


# Appended to each of c_stubs' files where the mode promises that nothing
# is left (``loads``): load the answers an earlier student of the same grader
# (the same user: a grader side by side runs its children as another) left,
# over the stub. c_stubs then earns in the batch what it earns alone (0) only
# if nothing was left.
LOAD = f"""

# ---- load the answers an earlier student left
import os as _os
for _path in {STASHES!r}:
    _path = _path.format(ex=_os.path.basename(__file__)[: -len(".py")])
    try:
        if _os.lstat(_path).st_uid == _os.getuid():
            exec(open(_path, encoding="utf-8").read())
            print("LOADED:", _path)
            break
    except OSError:
        pass
"""


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _attacker_source(ex: str) -> str:
    parts = [f"# {ex}: every attack on the zygote and the grader, then the solution\n_ATTACKS_REACHED = []\n"]
    for attack in ATTACKS:
        source = _read(os.path.join(ATTACKS_DIR, attack + ".py"))
        assert "__ATTACK_" not in source, f"{attack} has a placeholder this test does not fill in"
        parts.append(f"\n# ---- {attack}\n" + source)
        if re.search(r"^REACHED = ", source, re.M) and (RENICE_VISIBLE or "renice" not in attack):
            parts.append(f"\n_ATTACKS_REACHED.append(({attack!r}, REACHED))\n")
    parts.append("\nif any(_reached for _, _reached in _ATTACKS_REACHED):\n    raise RuntimeError('attacks that worked: ' + repr([_n for _n, _reached in _ATTACKS_REACHED if _reached]))\n")
    parts.append(LEAVE)
    parts.append(f"\n# ---- the solution of {ex}\n" + _read(os.path.join(SOLUTIONS, ex + ".py")))
    return "".join(parts)


def _write_student(folder: str, sources: dict) -> None:
    os.makedirs(folder)
    for ex, source in sources.items():
        with open(os.path.join(folder, ex + ".py"), "w", encoding="utf-8") as f:
            f.write(source)


def make_class(root: str, strict: bool, loads: bool) -> None:
    _write_student(os.path.join(root, ATTACKER), {ex: _attacker_source(ex) for ex in IDS})
    _write_student(os.path.join(root, RIGHT), {ex: _read(os.path.join(SOLUTIONS, ex + ".py")) for ex in IDS})
    _write_student(os.path.join(root, STUBS), {ex: _read(os.path.join(EXERCISES, ex + ".py")) + (LOAD if loads else "") for ex in IDS})
    _write_student(os.path.join(root, MISTAKEN), {ex: _read(os.path.join(WRONG_DIR, MISTAKES[ex] + ".py")) + find_code(strict) for ex in IDS})


def make_sticky_places() -> list:
    """Root's sticky folders of ``STICKY`` that are missing, made (as root;
    a folder of another user's would not be root's). Returns those made."""
    made = []
    if os.geteuid() != 0:
        return made
    for path in STICKY:
        if not os.path.isdir(path):
            os.makedirs(path)
            made.append(path)
        os.chmod(path, 0o1777)
    os.chmod(os.path.dirname(STICKY[-1]), 0o755)
    return made


def stashes_left() -> list:
    """The attacker's answers still where it left them."""
    return sorted(p for pattern in STASHES for ex in IDS for p in [pattern.format(ex=ex)] if os.path.lexists(p))


def clean_machine(made=()) -> None:
    """Remove what the attacker left in the machine's shared places (only
    without the sandbox can it get there; harmless otherwise), and the
    sticky folders the test ``made``."""
    for folder in STICKY:
        for name in os.listdir(folder) if os.path.isdir(folder) else ():
            path = os.path.join(folder, name)
            if name.startswith(TAG):
                shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
    shutil.rmtree(os.path.dirname(STICKY[-1]), ignore_errors=True)
    for path in made:
        if TAG in path:
            shutil.rmtree(path, ignore_errors=True)
        else:  # /tmp/.X11-unix: the machine's to use from now on too, unless empty
            try:
                os.rmdir(path)
            except OSError:
                pass
    for path in (f"/tmp/{TAG}", f"/dev/shm/{TAG}"):
        try:
            os.unlink(path)
        except OSError:
            pass
    ro = f"/tmp/{TAG}_ro"
    if os.path.lexists(ro):
        for folder in (ro, ro + "/inner"):
            try:
                os.chmod(folder, 0o755)
            except OSError:
                pass
        shutil.rmtree(ro, ignore_errors=True)
    libc = ctypes.CDLL(None)
    libc.mq_unlink(f"/{TAG}".encode())
    ident = libc.shmget(SHM_KEY, 0, 0)
    if ident >= 0:
        libc.shmctl(ident, 0, None)  # IPC_RMID


# How the gradings are started: ``python -m grader ARGS`` at priority NICE,
# with every process the grading process itself starts with multiprocessing
# (the batch's workers, its gradebook writer) named on stderr: a worker that
# died and was replaced would show as the same target started twice.
GRADER = r"""
import multiprocessing.process, os, runpy, sys
try:
    os.setpriority(os.PRIO_PROCESS, 0, int(sys.argv[1]))
except OSError:
    pass
MAIN = os.getpid()
_start = multiprocessing.process.BaseProcess.start
def _named_start(self):
    if os.getpid() == MAIN:
        target = getattr(self, "_target", None)
        sys.stderr.write("STARTED-PROCESS: %s.%s\n" % (getattr(target, "__module__", "?"), getattr(target, "__qualname__", repr(target))))
        sys.stderr.flush()
    return _start(self)
multiprocessing.process.BaseProcess.start = _named_start
sys.argv = ["grader", *sys.argv[2:]]
runpy.run_module("grader", run_name="__main__", alter_sys=True)
"""


def _run(args: list, cwd: str, tmp: str) -> subprocess.CompletedProcess:
    """``python -m grader ARGS`` (see GRADER)."""
    return subprocess.run(
        [sys.executable, "-c", GRADER, str(NICE), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": ROOT, "TMPDIR": tmp},
    )


def _comparable(results: dict, base: str) -> list:
    """Each check as a tuple of what a student sees, with the test's folder
    replaced by a placeholder."""
    out = []
    for t in results["tests"]:
        text = (t.get("output") or "").replace(base, "<BASE>")
        out.append((tuple(t["tags"]), t["name"], t["status"], t["score"], t["max_score"], t["visibility"], text))
    return out


def _by_exercise(results: dict) -> dict:
    points = {ex: 0.0 for ex in IDS}
    for t in results["tests"]:
        points[t["tags"][0]] += t["score"]
    return points


@pytest.fixture(scope="module", params=list(MODES))
def graded(request, tmp_path_factory):
    mode = request.param
    if mode == "sandbox" and not sandbox_mod.available():
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("CI must run this in the sandbox: bubblewrap is missing")
        pytest.skip("no sandbox can be made here")
    base = str(tmp_path_factory.mktemp(f"cross-{mode}"))
    root, out, tmp = (os.path.join(base, name) for name in ("class", "out", "tmp"))
    os.makedirs(tmp)
    # c_stubs loads what it finds where nothing may be left: the sandbox, and
    # children of a user of their own (the batch's and each grading's alone:
    # c_stubs alone, beside the batch, does not load the batch's).
    make_class(root, strict=mode == "sandbox", loads=mode == "sandbox" or OWN_USER)
    seed = str(TEST_INPUTS_SEED)
    options = ["--sandbox", MODES[mode], "--inputs-seed", seed]

    def batch():
        return _run(["batch", root, "--out", out, "--jobs", "1", *options], ROOT, tmp)

    def alone(sid):
        # Named relative to the class folder, as the batch names it.
        json_path = os.path.join(base, f"alone-{sid}.json")
        return _run(["grade", sid, "--json", json_path, *options], root, tmp), json_path

    made = make_sticky_places()
    clean_machine()
    try:
        # The batch and the three gradings alone are separate processes with
        # separate graders: run them at once to save time.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            batch_run = pool.submit(batch)
            alone_runs = {sid: pool.submit(alone, sid) for sid in ALONE}
            proc = batch_run.result()
            alone_done = {sid: f.result() for sid, f in alone_runs.items()}
        left = stashes_left()
    finally:
        clean_machine(made)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = {}
    for sid in (ATTACKER, *ALONE):
        path = os.path.join(out, sid, "results.json")
        assert os.path.exists(path), f"{sid} has no results.json\n" + proc.stderr
        with open(path, encoding="utf-8") as f:
            results[sid] = json.load(f)
    alone_results, alone_stdout = {}, {}
    for sid, (p, json_path) in alone_done.items():
        assert p.returncode == 0, f"{sid} graded alone: exit {p.returncode}\n" + p.stdout + p.stderr
        with open(json_path, encoding="utf-8") as f:
            alone_results[sid] = json.load(f)
        alone_stdout[sid] = p.stdout
    return {"mode": mode, "base": base, "out": out, "proc": proc, "batch": results, "alone": alone_results, "alone_stdout": alone_stdout, "left": left}


def test_one_worker_grades_all_four_in_order(graded):
    proc = graded["proc"]
    order = [line.split("] ", 1)[1].split(": ", 1)[0] for line in proc.stderr.splitlines() if line.startswith("[") and "] " in line]
    assert order == [ATTACKER, RIGHT, STUBS, MISTAKEN], proc.stderr
    started = [line.split(": ", 1)[1] for line in proc.stderr.splitlines() if line.startswith("STARTED-PROCESS: ")]
    assert started, "the batch started no process?\n" + proc.stderr
    assert len(started) == len(set(started)), f"a process was started twice (a worker replaced): {started}\n" + proc.stderr
    with open(os.path.join(graded["out"], "grades.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["student_id"], r["note"]) for r in rows] == [(sid, "") for sid in (ATTACKER, RIGHT, STUBS, MISTAKEN)]


def test_the_attacks_were_refused_and_the_attacker_keeps_its_points(graded):
    results = graded["batch"][ATTACKER]
    failed = [(t["name"], t["output"]) for t in results["tests"] if t["status"] != "passed"]
    assert results["score"] == 100, failed
    assert "output" not in results, results.get("output")


def test_the_mistaken_student_found_nothing(graded):
    for where, results in (("batch", graded["batch"][MISTAKEN]), ("alone", graded["alone"][MISTAKEN])):
        found = sorted({t["output"] for t in results["tests"] if MARK in (t["output"] or "")})
        assert not found, f"{MISTAKEN} ({where}, {graded['mode']}) found what an earlier student left: {found}"
    # The looking code ran (graded alone its prints show in the report), and
    # each mistake costs points in its own exercise only.
    assert "FOUND:" in graded["alone_stdout"][MISTAKEN]
    if graded["mode"] == "sandbox":
        assert "FOUND: [" in graded["alone_stdout"][MISTAKEN]
        assert not re.search(r"FOUND: \[[^\]]", graded["alone_stdout"][MISTAKEN]), graded["alone_stdout"][MISTAKEN]
    right = _by_exercise(graded["alone"][RIGHT])
    mistaken = _by_exercise(graded["alone"][MISTAKEN])
    assert all(mistaken[ex] < right[ex] for ex in IDS), mistaken


def test_no_answers_are_left_for_a_later_student(graded):
    """The attacker's answers, left in folders of its own below root's
    sticky world-writable folders and straight in them (``STASHES``), are
    gone once it is graded: c_stubs, graded next but one by the same worker,
    loaded none (it earns 0, as alone). Without the sandbox as another user
    nothing is removed (docs/teachers/sandbox.md): not asserted there."""
    if graded["mode"] == "off" and not OWN_USER:
        pytest.skip("children run as the grader's user: the machine's folders are not cleared")
    assert graded["left"] == []
    assert graded["batch"][STUBS]["score"] == 0


def test_alone_gradings_are_the_expected_ones(graded):
    assert graded["alone"][RIGHT]["score"] == 100
    assert graded["alone"][STUBS]["score"] == 0
    for sid in ALONE:  # the batch was given the same --inputs-seed (its results.json does not record it)
        assert graded["alone"][sid]["extra_data"]["inputs_seed"] == TEST_INPUTS_SEED


@pytest.mark.parametrize("sid", ALONE)
def test_each_student_gets_exactly_what_they_get_alone(graded, sid):
    base = graded["base"]
    in_batch = _comparable(graded["batch"][sid], base)
    alone = _comparable(graded["alone"][sid], base)
    differ = [(b, a) for b, a in zip(in_batch, alone) if b != a]
    assert len(in_batch) == len(alone), (len(in_batch), len(alone))
    assert not differ, f"{sid} after {ATTACKER} in one worker ({graded['mode']}) vs alone:\n" + "\n".join(f"  batch: {b}\n  alone: {a}" for b, a in differ)
    assert graded["batch"][sid]["score"] == graded["alone"][sid]["score"]


# --- root without namespaces: what the children's user leaves, at any depth ---


def _as_user(uid: int, make) -> None:
    """Run ``make()`` in a forked process as ``uid`` (child_user.become)."""
    from grader.child import child_user

    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            child_user.become(child_user.ChildUser(uid, uid))
            make()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _owned_by(folder: str, uid: int) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        out += [os.path.join(dirpath, n) for n in dirnames + filenames if os.lstat(os.path.join(dirpath, n)).st_uid == uid]
    return out


@pytest.fixture
def two_child_users():
    """Two uids of the children's range, claimed (as two graders would)."""
    from grader.child import child_user

    if not child_user.wanted(False):
        pytest.skip("children get a user of their own only where the grader is root")
    claims = [child_user.claim(), child_user.claim()]
    assert None not in claims
    yield [uid for uid, _ in claims]
    for _, fd in claims:
        os.close(fd)


def test_root_without_namespaces_clears_the_childrens_user_at_any_depth(two_child_users):
    """A machine's world-writable folders as root makes them (sticky, 1777;
    one inside a root folder only a walk finds, one that no other user may
    reach): leftovers.world_writable finds those the children's user can
    reach, and clear_owned removes all that user left in them, at any depth,
    without following a link and touching nothing of another user's."""
    import socket
    import tempfile

    from grader.child import leftovers

    me, other = two_child_users
    base = tempfile.mkdtemp(prefix="xstudent-places-", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        paths = {name: os.path.join(base, name) for name in ("x11", "ice", "plain", "plain/drop", "closed", "closed/hidden")}
        for name, path in paths.items():
            os.mkdir(path)
            os.chmod(path, {"plain": 0o755, "closed": 0o700}.get(name, 0o1777))
        root_file = os.path.join(base, "root_file")
        with open(root_file, "w") as f:
            f.write("root's")
        places = leftovers.world_writable((base,))
        assert sorted(places) == sorted(paths[n] for n in ("x11", "ice", "plain/drop")), places
        x11, ice, drop = paths["x11"], paths["ice"], paths["plain/drop"]

        def other_leaves():
            with open(os.path.join(drop, "others.txt"), "w") as f:
                f.write("another user's")
            os.chmod(os.path.join(drop, "others.txt"), 0o666)

        def me_leaves():
            os.makedirs(os.path.join(x11, "a", "b"))
            with open(os.path.join(x11, "a", "b", "answers.py"), "w") as f:
                f.write("ANSWERS = 1\n")
            with open(os.path.join(x11, "flat.py"), "w") as f:  # straight into root's sticky folder
                f.write("ANSWERS = 2\n")
            os.mkfifo(os.path.join(ice, "fifo"))
            socket.socket(socket.AF_UNIX).bind(os.path.join(ice, "sock"))
            os.symlink(root_file, os.path.join(ice, "link_to_root"))
            os.symlink(base, os.path.join(x11, "a", "link_to_base"))
            own = os.path.join(drop, "mine")
            os.mkdir(own, 0o777)
            os.chmod(own, 0o777)  # another user may write in it (see below)
            os.link(os.path.join(x11, "flat.py"), os.path.join(own, "hard_to_mine"))
            os.link(os.path.join(drop, "others.txt"), os.path.join(own, "hard_to_others"))
            deep = os.path.join(x11, "deep")
            os.mkdir(deep)
            os.chdir(deep)
            for _ in range(3 * leftovers.DEPTH + 10):  # deeper than the sweep goes at once
                os.mkdir("d")
                os.chdir("d")
            with open("bottom.py", "w") as f:
                f.write("ANSWERS = 3\n")
            os.chdir("/")
            os.makedirs(os.path.join(ice, "ro", "inner"))
            open(os.path.join(ice, "ro", "inner", "f"), "w").close()
            os.chmod(os.path.join(ice, "ro", "inner"), 0o555)
            os.chmod(os.path.join(ice, "ro"), 0)

        def other_leaves_in_mine():
            with open(os.path.join(drop, "mine", "others_in_mine.txt"), "w") as f:
                f.write("another user's, in my folder")

        _as_user(other, other_leaves)
        _as_user(me, me_leaves)
        _as_user(other, other_leaves_in_mine)
        assert len(_owned_by(base, me)) > 10
        leftovers.clear_owned({me}, places)
        assert _owned_by(base, me) == []
        # Nothing of another user's, nor of root's, removed or changed.
        with open(os.path.join(drop, "others.txt")) as f:
            assert f.read() == "another user's"
        with open(os.path.join(drop, "mine", "others_in_mine.txt")) as f:
            assert f.read() == "another user's, in my folder"
        assert os.lstat(os.path.join(drop, "others.txt")).st_nlink == 1  # the hard link to it is gone
        with open(root_file) as f:
            assert f.read() == "root's"
        assert sorted(os.listdir(base)) == ["closed", "ice", "plain", "root_file", "x11"]
        # What could not be emptied (another user's file in it) is root's
        # now, and closed to every other user.
        assert os.listdir(ice) == [] and os.listdir(x11) == []
        info = os.lstat(os.path.join(drop, "mine"))
        assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_clearing_the_machines_places_is_cheap(two_child_users):
    """The sweep runs after every exercise: a few milliseconds on this
    machine's world-writable folders (their size is the machine's)."""
    import time

    from grader.child import leftovers

    places = leftovers.world_writable()
    assert "/tmp" in places and "/proc" not in places
    leftovers.clear_owned({two_child_users[0]}, places)  # the page cache warm
    start = time.perf_counter()
    leftovers.clear_owned({two_child_users[0]}, places)
    assert time.perf_counter() - start < 0.05
