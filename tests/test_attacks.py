"""The attack catalogue: every file in tests/attacks/ replaces one exercise file
of a correct submission with something malicious or careless, and the real
command line grades the result.

A file is named ``EXERCISE__ATTACK.py``; adding one adds a test. For each
attack the test asserts that

1. the grader exits 0 and writes its JSON report;
2. the attacked exercise earns exactly what the file honestly earns: 0 unless
   ``EXPECTED_POINTS`` says otherwise, with the feedback in ``FEEDBACK``;
3. every other exercise gets full marks (in the runs listed in ``FULL_RUNS``;
   the others grade only the attacked exercise, to save time);
4. the submission folder is byte-for-byte unchanged, with no ``__pycache__``;
5. no process the attack started is left: attack code names its processes
   after a tag (``/proc/PID/comm``, inherited by forks) and puts the tag in
   the environment (inherited by programs it runs), and the test looks for
   both once the grader has exited.

Attack files may contain two placeholders the test fills in: ``__ATTACK_TAG__``
(a unique 15-character tag) and ``__ATTACK_DIR__`` (a folder outside the
submission where an attack leaves markers for the test).

The gradings run three at a time in the background (most of their time is
spent importing torch or waiting out a time limit); each test waits for its
own. ``-k ATTACK`` grades only that attack.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import secrets
import signal
import stat
import time
from dataclasses import dataclass

import pytest

from conftest import SOLUTIONS, grade_cli, make_submission, points_by_exercise
from grader.exercises import IDS
from grader.limits import become_subreaper

ATTACKS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attacks")
ATTACKS = sorted(name[: -len(".py")] for name in os.listdir(ATTACKS_DIR) if name.endswith(".py") and "__" in name)

FULL = "full"
# What the attacked exercise earns when the file is honest apart from the
# attack (FULL: all its points). Every attack not listed here earns 0.
EXPECTED_POINTS = {
    "ex0_weighted_sum__slow_import": FULL,
    "ex0_weighted_sum__utf8_bom": FULL,
    "ex0_weighted_sum__huge_output": FULL,
    "ex0_weighted_sum__subprocess_sleep": FULL,
    "ex0_weighted_sum__double_fork_daemon": FULL,
    "ex0_weighted_sum__fork_storm": FULL,
    "ex0_weighted_sum__fork_chain": FULL,
    "ex0_weighted_sum__kill_zygote": FULL,
    "ex3_scaling__double_fork_daemon": FULL,
    "ex3_scaling__kill_zygote": FULL,
}

# Text every check of the attacked exercise must show when it scores 0 (a
# tuple: one of these). "{file}" is the exercise file as the student named
# it, "{line}" the line of the attack file that holds "SYNTAX ERROR HERE".
_GOT = ["得到 / got", "期望 / expected"]  # a wrong answer reached the check and was judged
FEEDBACK = {
    "ex0_weighted_sum__stub": ["尚未完成", "not implemented"],
    "ex0_weighted_sum__syntax_error": ["语法错误", "syntax error in {file}, line {line}", "SyntaxError"],
    "ex0_weighted_sum__not_utf8": ["UTF-8", "{file}"],
    "ex0_weighted_sum__symlink": ["符号链接", "symbolic link", "{file}"],
    "ex0_weighted_sum__import_error": ["importing the file failed", "ModuleNotFoundError", "attention_helpers_nobody_installed", "line 5"],
    "ex0_weighted_sum__import_solutions": ["ModuleNotFoundError", "solutions"],
    "ex0_weighted_sum__sys_exit_import": ["importing the file failed", "SystemExit", "exit(0)"],
    "ex0_weighted_sum__os_exit_in_function": ["the process ended unexpectedly"],
    "ex0_weighted_sum__endless_import": ["importing the file took over 20 s"],
    # Six checks of 10 s fill the 60 s budget: on a loaded machine the last
    # restart can come after the budget is spent.
    "ex0_weighted_sum__sigterm_loop": [("time limit: no answer within 10 s", "used up its 60 s of time")],
    "ex0_weighted_sum__memory_torch_empty": ["RuntimeError"],
    "ex0_weighted_sum__memory_bytearray": ["MemoryError"],
    "ex0_weighted_sum__tensor_subclass": ["Answer", "not a plain torch.Tensor"],
    "ex0_weighted_sum__torch_function": ["Chameleon", "not a plain torch.Tensor"],
    "ex0_weighted_sum__return_list": ["builtins.list", "not a plain torch.Tensor"],
    "ex0_weighted_sum__return_numpy": ["numpy.ndarray", "not a plain torch.Tensor"],
    "ex0_weighted_sum__return_pickle_dict": ["builtins.dict", "not a plain torch.Tensor"],
    "ex0_weighted_sum__tensor_subclass_smuggled": ["could not be read safely"],
    "ex0_weighted_sum__pickle_payload": ["could not be read safely"],
    "ex0_weighted_sum__zip_bomb": ["could not be read safely"],
    "ex0_weighted_sum__huge_tensor": ["could not be read safely"],
    "ex0_weighted_sum__huge_exception": ["your code raised"],
    "ex0_weighted_sum__return_nan": _GOT + ["nan"],
    "ex0_weighted_sum__return_inf": _GOT + ["inf"],
    "ex0_weighted_sum__patch_torch": _GOT,
    "ex0_weighted_sum__patch_builtins_pytest": _GOT,
    "ex0_weighted_sum__fake_stdout": _GOT,
    "ex0_weighted_sum__fake_results_json": _GOT,
}

# Graded in full, to show that the attack costs no other exercise a point;
# every other attack is graded with --only its exercise.
FULL_RUNS = {
    "ex0_weighted_sum__kill_zygote",
    "ex0_weighted_sum__double_fork_daemon",
    "ex0_weighted_sum__fork_storm",
    "ex0_weighted_sum__fake_results_json",
    "ex0_weighted_sum__patch_torch",
    "ex0_weighted_sum__huge_output",
    "ex3_scaling__double_fork_daemon",
    "ex3_scaling__kill_zygote",
}

# The exercise file is replaced by a symlink to the reference solution.
SYMLINKED = {"ex0_weighted_sum__symlink"}

# Started first: they wait out time limits.
SLOW = ["ex0_weighted_sum__sigterm_loop", "ex0_weighted_sum__endless_import", "ex0_weighted_sum__kill_zygote", "ex0_weighted_sum__slow_import"]

TAG_ENV = b"ATTACK_TAG="

# The core grader: process-level protection only (time, memory, output,
# process groups, a subreaper), which must hold where no sandbox can be made.
# Several attacks here (markers written outside the submission, reading the
# zygote's /proc entries) assume it; the bubblewrap sandbox is a layer on top.
GRADER_OPTIONS = ("--sandbox", "off")


def exercise_of(attack: str) -> str:
    return attack.split("__", 1)[0]


# --- what a run leaves behind ------------------------------------------------


def snapshot(folder: str) -> dict:
    """Every entry under ``folder``: its kind and content (or link target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                with open(path, "rb") as f:
                    out[rel] = ("file", stat.S_IMODE(info.st_mode), hashlib.sha256(f.read()).hexdigest())
    return out


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _state(pid: str) -> str:
    stat_line = _read(f"/proc/{pid}/stat").decode(errors="replace")
    return stat_line.rsplit(")", 1)[-1].split()[0] if ")" in stat_line else "?"


def tagged_processes(tag: str) -> list[int]:
    """Live processes that carry ``tag`` in their name, environment or argv."""
    found = []
    needle = tag.encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        named = _read(f"/proc/{pid}/comm").strip() == needle
        if named or TAG_ENV + needle in _read(f"/proc/{pid}/environ") or needle in _read(f"/proc/{pid}/cmdline"):
            if _state(pid) not in ("Z", "X", "?"):
                found.append(int(pid))
    return found


def children_of(pid: int) -> set[int]:
    kids = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat_line = _read(f"/proc/{name}/stat").decode(errors="replace")
            if ")" in stat_line and stat_line.rsplit(")", 1)[1].split()[1] == str(pid):
                kids.add(int(name))
    return kids


def kill_and_reap(pids) -> None:
    """Clean up after a failed test: this machine is shared."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)  # only our own children (orphans re-parented to us) can be reaped
        except ChildProcessError:
            pass


def wait_for_none(tag: str, seconds: float = 3.0) -> list[int]:
    """Give the grader's cleanup a moment; return what is still alive."""
    end = time.monotonic() + seconds
    while True:
        left = tagged_processes(tag)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


# --- grading the attacks -----------------------------------------------------


@dataclass
class Outcome:
    folder: str
    attack_dir: str
    json_path: str
    results: dict
    stdout: str
    seconds: float
    changed: bool
    before: dict
    after: dict
    survivors: list
    report_after_cleanup: dict | None  # the JSON file read again once the attack's processes had their chance


def attack_source(attack: str, tag: str, attack_dir: str) -> bytes:
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        source = f.read()
    return source.replace(b"__ATTACK_TAG__", tag.encode()).replace(b"__ATTACK_DIR__", attack_dir.encode())


def run_attack(attack: str, root: str) -> Outcome:
    exercise = exercise_of(attack)
    tag = "atk" + secrets.token_hex(6)  # 15 characters: all that /proc/PID/comm holds
    attack_dir = os.path.join(root, attack)
    os.makedirs(attack_dir)
    folder = make_submission(os.path.join(attack_dir, "submission"))
    target = os.path.join(folder, exercise + ".py")
    os.remove(target)
    if attack in SYMLINKED:
        os.symlink(os.path.join(SOLUTIONS, exercise + ".py"), target)
    else:
        with open(target, "wb") as f:
            f.write(attack_source(attack, tag, attack_dir))
    before = snapshot(folder)
    extra = GRADER_OPTIONS + (() if attack in FULL_RUNS else ("--only", exercise))
    start = time.monotonic()
    try:
        results, proc = grade_cli(folder, *extra)
    finally:
        survivors = wait_for_none(tag)
        kill_and_reap(survivors)
    json_path = folder + "-results.json"
    after = snapshot(folder)
    try:
        report_after_cleanup = json.loads(_read(json_path))
    except ValueError:
        report_after_cleanup = None
    return Outcome(
        folder, attack_dir, json_path, results, proc.stdout, time.monotonic() - start, before != after, before, after,
        survivors, report_after_cleanup,
    )


@pytest.fixture(scope="module")
def outcomes(full_marks, tmp_path_factory, request):
    """Start the gradings of the attacks the selected tests name, in the
    background; ``outcomes(attack)`` waits for one (and starts it first if no
    parametrized test named it). Attacks on exercises that have no checks are
    never run."""
    become_subreaper()  # orphans of a grader that exits come to us, not to init
    me = os.getpid()
    children_before = children_of(me)
    root = str(tmp_path_factory.mktemp("attacks"))
    selected = {
        item.callspec.params["attack"]
        for item in request.session.items
        if item.module is request.module and "attack" in getattr(getattr(item, "callspec", None), "params", {})
    }
    runnable = [a for a in ATTACKS if full_marks[exercise_of(a)] > 0]
    order = [a for a in SLOW if a in selected] + [a for a in ATTACKS if a in selected and a not in SLOW]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=3)
    futures = {a: pool.submit(run_attack, a, root) for a in order if a in runnable}

    def get(attack: str) -> Outcome:
        if attack not in runnable:
            pytest.skip(f"{exercise_of(attack)} has no checks yet, so the attack is never run")
        if attack not in futures:
            futures[attack] = pool.submit(run_attack, attack, root)
        return futures[attack].result()

    get.futures, get.children_before = futures, children_before
    yield get
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack(attack, outcomes, full_marks):
    exercise = exercise_of(attack)
    out = outcomes(attack)
    points = points_by_exercise(out.results)

    # (2) the attacked exercise earns what it honestly earns, and says why not more
    want = EXPECTED_POINTS.get(attack, 0)
    want = full_marks[exercise] if want == FULL else want
    assert points[exercise] == want, _summary(out, exercise)
    tests = [t for t in out.results["tests"] if t["tags"][0] == exercise]
    assert tests, "the attacked exercise was not graded"
    if want == 0:
        fill = {"file": os.path.join(out.folder, exercise + ".py"), "line": _syntax_error_line(attack)}
        for t in tests:
            assert t["status"] == "failed"
            for word in FEEDBACK.get(attack, []):
                options = [w.format(**fill) for w in (word if isinstance(word, tuple) else (word,))]
                assert any(w in t["output"] for w in options), f"{t['name']}: {options!r} not in feedback:\n{t['output']}"

    # (3) the other exercises lose nothing
    if attack in FULL_RUNS:
        for ex in IDS:
            if ex != exercise:
                assert points[ex] == full_marks[ex], f"{ex}: {points[ex]} of {full_marks[ex]}\n" + _summary(out, ex)
    else:
        assert {t["tags"][0] for t in out.results["tests"]} == {exercise}

    # (4) the submission folder is untouched
    assert not out.changed, f"submission folder changed:\nbefore {out.before}\nafter  {out.after}"
    assert not any("__pycache__" in path for path in out.after)

    # (5) nothing the attack started is still running
    assert not out.survivors, f"processes left behind: {out.survivors}"

    # the report on disk is still the grader's once the attack's processes had their chance
    assert out.report_after_cleanup == out.results


def _syntax_error_line(attack: str) -> int:
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        for n, line in enumerate(f, 1):
            if b"SYNTAX ERROR HERE" in line:
                return n
    return 0


def _summary(out: Outcome, exercise: str) -> str:
    return "\n".join(f"{t['name']}: {t['score']}/{t['max_score']}\n{t['output']}" for t in out.results["tests"] if t["tags"][0] == exercise)


# --- what particular attacks must not achieve ---------------------------------


def test_printed_fakes_stay_in_their_box(outcomes):
    """A child's prints are shown indented under "your code printed", with
    terminal control characters made harmless: the one real total line stays
    the only one, and nothing can repaint it."""
    out = outcomes("ex0_weighted_sum__fake_stdout")
    assert "\x1b" not in out.stdout and "\x9b" not in out.stdout
    totals = [line for line in out.stdout.splitlines() if line.startswith("总分 / total")]
    max_score = sum(t["max_score"] for t in out.results["tests"])
    assert len(totals) == 1 and re.search(rf"\b0 / {max_score:g}$", totals[0]), totals
    assert "100 / 100" in out.stdout  # the fake table was printed, but only inside the box
    assert out.results["score"] == 0


def test_fake_results_json_loses(outcomes):
    out = outcomes("ex0_weighted_sum__fake_results_json")
    assert out.report_after_cleanup == out.results
    assert points_by_exercise(out.results)["ex0_weighted_sum"] == 0
    with open(os.path.join(out.attack_dir, "results.json")) as f:  # the fake beside the submission was written...
        assert '"score": 100.0' in f.read()  # ...and is nobody's report
    with open(os.path.join(out.attack_dir, "child-cwd.txt")) as f:
        assert not os.path.exists(f.read()), "the child's private copy of the submission was not removed"


@pytest.mark.parametrize("attack", ["ex0_weighted_sum__pickle_payload", "ex0_weighted_sum__return_pickle_dict"])
def test_pickle_payloads_never_run(outcomes, attack):
    out = outcomes(attack)
    assert not [name for name in os.listdir(out.attack_dir) if name.startswith("pwned")]


def test_feedback_stays_short(outcomes):
    """A child decides what its error says; the grader trims it."""
    out = outcomes("ex0_weighted_sum__huge_exception")
    assert all(len(t["output"]) < 5000 for t in out.results["tests"]), [len(t["output"]) for t in out.results["tests"]]
    assert len(_read(out.json_path)) < 100_000


def test_no_process_outlives_the_gradings(outcomes):
    """Once every grading is over, this process (a subreaper) has no child
    left that it did not have before: no orphan of any grader survived, tagged
    or not."""
    for future in outcomes.futures.values():
        future.exception()  # wait; failures are reported by test_attack
    time.sleep(0.5)
    me = os.getpid()
    left = children_of(me) - outcomes.children_before
    alive = [pid for pid in left if _state(str(pid)) not in ("Z", "X", "?")]
    kill_and_reap(left)
    assert not alive, [(pid, _read(f"/proc/{pid}/cmdline")) for pid in alive]
