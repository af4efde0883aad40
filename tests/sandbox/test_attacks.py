"""The attack catalogue: every file in tests/attacks/ replaces one exercise file
of a correct submission with something malicious or careless, and the real
command line grades the result, once without the sandbox (``--sandbox off``:
the process-level protection alone, which must hold where no sandbox can be
made) and once in it (``--sandbox require``; skipped only where
``grader.engine.sandbox.available()`` is False). Test ids read
``[off-ex0_weighted_sum__fork_storm]`` and ``[sandbox-...]``.

A file is named ``EXERCISE__ATTACK.py``; adding one adds a test per mode. Each
grading runs from a fresh copy of the project's ``grader/``, ``checks/`` and
``solutions/`` (the grader package's parent folder is all an attack can find
of the project), so that an attack that gets to write there damages a copy,
never the checkout. For each attack and mode the test asserts that

1. the grader exits 0 and writes its JSON report;
2. the attacked exercise earns exactly what the file honestly earns: 0 unless
   ``EXPECTED_POINTS`` says otherwise (per mode where the modes differ), with
   the feedback in ``FEEDBACK``;
3. every other exercise gets full marks (in the runs listed in ``FULL_RUNS``;
   the others grade only the attacked exercise, to save time);
4. the submission folder is byte-for-byte unchanged, with no ``__pycache__``;
5. no process the attack started is left: attack code names its processes
   after a tag (``/proc/PID/comm``, inherited by forks) and puts the tag in
   the environment (inherited by programs it runs), and the test looks for
   both once the grader has exited;
6. the project copy's ``grader/``, ``checks/`` and ``solutions/`` are
   unchanged (hashed before and after);
7. no line of a hidden check or of a solution region (20 characters or more)
   appears in the report on stdout or in results.json.

Some attacks only the sandbox can stop: a process of the grader's user can
read the solutions by their path, signal the grader, use the network, write
the grader's and the submission's folders. Where the grader is root, its
children run as a user of their own even without the sandbox
(``grader/child/child_user.py``), and only what needs namespaces is left (the
network, the view of the whole file system): ``NEEDS_NAMESPACES`` and
``NEEDS_ANOTHER_USER`` say which is which, and ``SANDBOX_ONLY`` is what
this run's ``--sandbox off`` cannot stop. For those the test asserts what
that mode does guarantee (and that the attack did run, so that the
sandbox run's negative result means something).

Attack files may contain placeholders the test fills in: ``__ATTACK_TAG__``
(a unique 15-character tag), ``__ATTACK_DIR__`` (a folder outside the
submission where an attack leaves markers for the test: writable without the
sandbox, out of sight in it), ``__ATTACK_PORT__`` (a port on 127.0.0.1
where the test listens) and ``__ATTACK_ROLE__``: an attack across students,
graded as ``writer`` (the submission above), then, with the same tag, as
``loader`` in a second student's submission (the solutions but the attacked
exercise), graded next: by the same warm grader, or by the command line (a
grader of its own) where the writer was (``test_answers_left_for_a_later_student``).
Where the machine lacks root's sticky ``/tmp/.X11-unix`` and
``/tmp/.ICE-unix`` (systemd makes them on every boot), a test run as root
makes them for the catalogue's time.

The gradings run in the background, one per processor and one more (some
wait out a time limit); each test waits for its own. A grader is forked
from a warm interpreter that has imported torch (``tests/support/warm_start.py``:
the same ``python -m grader`` command line, arguments, folder, environment
and session, without two seconds of torch's import each time); an attack
that looks for the grader by its command line, which a fork would not show,
gets a new interpreter from the same server. ``-k ATTACK`` grades only that
attack. Their time limits are the real ones shortened by ``TIME_SCALE``
(below), and further for an attack that spins until a limit stops it
(``SPINNERS``).
"""

import base64
import compileall
import concurrent.futures
import contextlib
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from unittest import mock

import background_share
import pytest
from conftest import ROOT, SOLUTIONS, below_the_zygote, descendants, make_submission, points_by_exercise
from warm_start import WarmStarter

from grader.authoring.regions import solution_regions
from grader.child import cgroup, child_user
from grader.child import limits as limits_mod
from grader.child.limits import Limits, children_of
from grader.engine import sandbox as sandbox_mod
from grader.engine.redact import MARK
from grader.exercises import IDS
from grader.handin import submission as submission_mod
from grader.student import warm_grader
from grader.student.request import GradeRequest

ATTACKS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "attacks")
ATTACKS = sorted(name[: -len(".py")] for name in os.listdir(ATTACKS_DIR) if name.endswith(".py") and "__" in name)

MODES = ("off", "sandbox")
# Each attack again as a notebook's answer cell (<id>.ipynb, no .py), in the
# sandbox: a notebook gets nothing a .py would not.
NOTEBOOK = "notebook"
ATTACK_MODES = MODES + (NOTEBOOK,)
MODE_OPTIONS = {"off": ("--sandbox", "off"), "sandbox": ("--sandbox", "require"), NOTEBOOK: ("--sandbox", "require")}
SANDBOX = sandbox_mod.available()
NO_SANDBOX = "no sandbox can be made here (bubblewrap and user namespaces); CI installs bubblewrap"

# A control group per grader: memory and processes of all of a submission's
# processes count together (grader/child/cgroup.py); made where the grader is root.
GROUP = cgroup.available()
OWN_USER = child_user.wanted(False) and child_user.probe(child_user.interpreter_paths(), []).user is not None

# The graders this test starts wait out time limits shortened by this factor
# (grader/child/limits.py: ATTENTION_TIME_SCALE): the same code paths, half the
# waiting. It is set in their environment only, not in this test run's (the
# docs a full run builds show the real limits); one set around the run wins
# (ATTENTION_TIME_SCALE=1: the real limits). Half, no less: the attacks that
# take their time honestly at import (slow_import's 4 s, solutions_walk's
# 6 s) must stay within the import limit, and a stopped child must still be
# found out by the grader's 5 s wait for its word (WORD_SECONDS in
# grader/engine/submission_endpoint.py) before its import limit cuts that wait short.
TIME_SCALE = os.environ.get(limits_mod.TIME_SCALE) or "0.5"
# An attack that spins until a limit stops it keeps a processor busy all that
# while, and does nothing honest a shorter limit would cut: its grader gets
# the limits shortened further (a fifth: a 4 s import limit).
SPINNERS = {"ex0_weighted_sum__endless_import"}
SPIN_SCALE = os.environ.get(limits_mod.TIME_SCALE) or "0.2"


def time_scale(attack: str) -> str:
    """The ATTENTION_TIME_SCALE of the grader that grades ``attack`` by the command line."""
    return SPIN_SCALE if attack in SPINNERS else TIME_SCALE


def _limits(scale: str) -> Limits:
    with mock.patch.dict(os.environ, {limits_mod.TIME_SCALE: scale}):
        return Limits()


LIMITS = _limits(TIME_SCALE)  # what those graders give each child
# The grader's messages say the limits in whole seconds.
IMPORT_S, REQUEST_S, EXERCISE_S = (f"{s:.0f} s" for s in (LIMITS.import_seconds, LIMITS.request_seconds, LIMITS.exercise_seconds))
SPIN_IMPORT_S = f"{_limits(SPIN_SCALE).import_seconds:.0f} s"

FULL = "full"
# What the attacked exercise earns when the file is honest apart from the
# attack (FULL: all its points); a dict where the two modes differ. Every
# attack not listed here earns 0.
EXPECTED_POINTS = {
    "ex0_weighted_sum__slow_import": FULL,
    # The values it returns are right; the subclass's __eq__ is the cheat, and
    # it never reaches the grader: the wire carries dtype, shape and bytes only.
    # The worked example (1 point of 10) holds each call to a plain tensor
    # where the example runs (ops._run_example), which the patch does not reach.
    "ex0_weighted_sum__tensor_subclass_smuggled": 9,
    "ex0_weighted_sum__utf8_bom": FULL,
    "ex0_weighted_sum__huge_output": FULL,
    "ex0_weighted_sum__subprocess_sleep": FULL,
    "ex0_weighted_sum__double_fork_daemon": FULL,
    "ex0_weighted_sum__lower_zygote_limits": FULL,
    "ex3_scaling__import_leaves_a_killer": FULL,
    "ex0_weighted_sum__fork_storm": FULL,
    "ex0_weighted_sum__fork_chain": FULL,
    "ex0_weighted_sum__thread_storm": FULL,  # stops starting threads at the process limit
    "ex0_weighted_sum__write_other_exercises": FULL,
    "ex2_scores__plant_modules_for_later": FULL,
    "ex3_scaling__double_fork_daemon": FULL,
    # Without the sandbox the child outlives the zygote it killed (it is
    # re-parented to the grader) and answers; in the sandbox the zygote is the
    # namespace's process 1, which nothing inside can kill.
    "ex0_weighted_sum__kill_zygote": FULL,
    "ex3_scaling__kill_zygote": FULL,
    "ex0_weighted_sum__kill_parent": FULL,  # --sandbox off: the grader is killed (SANDBOX_ONLY)
    "ex0_weighted_sum__kill_parent_group": FULL,  # likewise
    # In the sandbox the zygote's group is 1: the kill is kill(-1), which can
    # reach no process of the grader's (nor the zygote, the namespace's process
    # 1), and the answers are right; --sandbox off: the grader is killed
    # (SANDBOX_ONLY).
    "ex4_masking__kill_parent_group_at_import": FULL,
    # SANDBOX_ONLY: without the sandbox these cheat successfully.
    "ex0_weighted_sum__solutions_walk": {"off": FULL, "sandbox": 0},
    "ex0_weighted_sum__network": {"off": FULL, "sandbox": 0},
    # SANDBOX_ONLY where children run as the grader's user; not as their own.
    "ex0_weighted_sum__solutions_by_grader_path": {"off": 0 if OWN_USER else FULL, "sandbox": 0},
    # Honest code that stops (SIGSTOP) every process it can see at import:
    # the next exercise's child, started ahead, is woken before its import.
    "ex0_weighted_sum__stop_the_next_child": FULL,
    "ex0_weighted_sum__stop_each_process": FULL,
    "ex0_weighted_sum__kill_all": FULL,  # never run where children run as the grader's user
    # 3 GiB held by one submission under a 2 GiB limit: stopped where the
    # grader makes a control group (as root), not by per-process limits.
    "ex0_weighted_sum__memory_in_forks": 0 if GROUP else FULL,
    "ex0_weighted_sum__memory_in_memfd": 0 if GROUP else FULL,
    # A notebook is JSON, always UTF-8: the coding line means nothing there.
    "ex1_averaging__lone_surrogate_by_coding": {"off": 0, "sandbox": 0, NOTEBOOK: FULL},
}

# Text every check of the attacked exercise must show when it scores 0 (a
# tuple: one of these; a dict: per mode). "{file}" is the exercise file as
# the student named it, "{line}" the line of the attack file that holds
# "SYNTAX ERROR HERE".
_GOT = ["得到 / got", "期望 / expected"]  # a wrong answer reached the check and was judged
FEEDBACK = {
    "ex0_weighted_sum__stub": ["尚未完成", "not implemented"],
    "ex0_weighted_sum__syntax_error": ["语法错误", "syntax error in {file}, line {line}", "SyntaxError"],
    "ex0_weighted_sum__not_utf8": ["UTF-8", "{file}"],
    "ex0_weighted_sum__lone_surrogate": ["UTF-8", "{file}"],
    "ex1_averaging__lone_surrogate_by_coding": ["lone surrogate, U+D800", "{file}, line 16"],
    "ex0_weighted_sum__symlink": ["符号链接", "symbolic link", "{file}"],
    "ex0_weighted_sum__hardlink": ["硬链接", "hard link", "{file}"],
    "ex0_weighted_sum__import_error": ["importing the file failed", "ModuleNotFoundError", "attention_helpers_nobody_installed", "line 5"],
    "ex0_weighted_sum__import_solutions": ["ModuleNotFoundError", "solutions"],
    "ex0_weighted_sum__sys_exit_import": ["importing the file failed", "SystemExit", "exit(0)"],
    "ex0_weighted_sum__os_exit_in_function": ["the process ended unexpectedly"],
    "ex0_weighted_sum__endless_import": [f"importing the file took over {SPIN_IMPORT_S}"],
    "ex4_masking__endless_import_ignoring_signals": [f"importing the file took over {IMPORT_S}"],
    # Six checks of a request limit each fill the exercise's budget: on a
    # loaded machine the last restart can come after the budget is spent.
    "ex0_weighted_sum__sigterm_loop": [(f"time limit: no answer within {REQUEST_S}", f"used up its {EXERCISE_S} of time")],
    "ex0_weighted_sum__memory_torch_empty": ["RuntimeError"],
    "ex0_weighted_sum__memory_bytearray": ["MemoryError"],
    "ex0_weighted_sum__tensor_subclass": ["Answer", "not a plain torch.Tensor"],
    "ex0_weighted_sum__torch_function": ["Chameleon", "not a plain torch.Tensor"],
    "ex0_weighted_sum__return_list": ["builtins.list", "not a plain torch.Tensor"],
    # A check that back-propagates gives inputs that require grad: .numpy() itself raises there.
    "ex0_weighted_sum__return_numpy": [("numpy.ndarray", "Can't call numpy() on Tensor that requires grad"), ("not a plain torch.Tensor", "your code raised RuntimeError")],
    "ex0_weighted_sum__return_pickle_dict": ["builtins.dict", "not a plain torch.Tensor"],
    "ex0_weighted_sum__pickle_payload": ["could not be read safely"],
    "ex0_weighted_sum__zip_bomb": ["could not be read safely"],
    # A check's draws in one batch: four huge answers may not even be made within a request's time.
    "ex0_weighted_sum__huge_tensor": [("could not be read safely", "time limit: no answer within")],
    "ex0_weighted_sum__huge_exception": ["your code raised"],
    "ex0_weighted_sum__return_nan": _GOT + ["nan"],
    "ex0_weighted_sum__return_inf": _GOT + ["inf"],
    "ex0_weighted_sum__patch_torch": _GOT,
    "ex0_weighted_sum__patch_builtins_pytest": _GOT,
    "ex0_weighted_sum__fake_stdout": _GOT,
    "ex0_weighted_sum__fake_results_json": _GOT,
    "ex0_weighted_sum__kill_grader": _GOT,
    "ex0_weighted_sum__kill_group": ["the process ended unexpectedly"],
    "ex0_weighted_sum__solutions_walk": {"sandbox": ["RuntimeError", "no solution file found"]},
    "ex0_weighted_sum__solutions_by_grader_path": {"off": ["PermissionError"], "sandbox": [("FileNotFoundError", "PermissionError")]},
    "ex0_weighted_sum__hidden_checks_print": {
        "off": ["your code raised RuntimeError", "redacted: text of a hidden check"],
        "sandbox": ["your code raised RuntimeError", "no hidden check found to quote"],
    },
    "ex0_weighted_sum__hidden_checks_encoded": {
        "off": [("LEAK:", "得到 / got")],
        "sandbox": [("nothing to leak", "得到 / got")],
    },
    "ex0_weighted_sum__network": {"sandbox": _GOT},
    "ex0_weighted_sum__write_grader_folders": _GOT,
    "ex0_weighted_sum__hardlink_runtime": _GOT,
    "ex0_weighted_sum__fill_tmpfs": ["your code raised RuntimeError", "bytes written in all"],
    # Control codes and markup from a child are shown as text (grader/text.py: visible).
    "ex0_weighted_sum__terminal_escapes_in_exception": ["your code raised Passed\\x1b[2J"],
    "ex0_weighted_sum__terminal_escapes_in_returned_type": ["not a plain torch.Tensor", "\\x1b[2J"],
    "ex0_weighted_sum__terminal_escapes_in_traceback_line": ["your code raised ValueError", "\\x1b[2J"],
    "ex0_weighted_sum__feedback_fence_breakout": ["your code raised RuntimeError", "<img src="],
    # The kernel's keyrings are refused: nothing stored, nothing found, wrong answers.
    "ex0_weighted_sum__keyring_store": _GOT,
    "ex3_scaling__keyring_session": _GOT,
    "ex0_weighted_sum__memory_in_forks": _GOT,
    # Killed at the memory limit; on a loaded machine the kernel's reclaim
    # before that kill can outlast the import limit, which stops it first.
    "ex0_weighted_sum__memory_in_memfd": [("the process ended while importing", f"importing the file took over {IMPORT_S}")],
    "ex0_weighted_sum__processes_beyond_limit": _GOT,
    "ex0_weighted_sum__processes_by_exec": _GOT,
    # The writers of attacks across students say how many places they used.
    "ex0_weighted_sum__answers_for_the_next_student": ["your code raised RuntimeError", "STASHED:"],
    "ex3_scaling__answers_in_every_sticky_folder": ["your code raised RuntimeError", "STASHED:"],
}

# --sandbox off where children run as a user of their own: what they could
# not read, they say so.
FEEDBACK_OWN_USER = {
    "ex0_weighted_sum__hidden_checks_print": ["your code raised RuntimeError", "no hidden check found to quote"],
    "ex0_weighted_sum__hidden_checks_encoded": [("nothing to leak (PermissionError)", "得到 / got")],
}

# Graded in full, to show that the attack costs no other exercise a point;
# every other attack is graded with --only its exercise.
FULL_RUNS = {
    "ex0_weighted_sum__lower_zygote_limits",
    "ex3_scaling__import_leaves_a_killer",
    "ex0_weighted_sum__kill_zygote",
    "ex0_weighted_sum__kill_parent",
    "ex0_weighted_sum__kill_parent_group",
    "ex0_weighted_sum__kill_all",
    "ex0_weighted_sum__double_fork_daemon",
    "ex0_weighted_sum__fork_storm",
    "ex0_weighted_sum__fake_results_json",
    "ex0_weighted_sum__patch_torch",
    "ex0_weighted_sum__huge_output",
    "ex0_weighted_sum__write_other_exercises",
    "ex2_scores__plant_modules_for_later",
    "ex3_scaling__double_fork_daemon",
    "ex3_scaling__kill_zygote",
    # ex5's child is started ahead while ex4's checks wait out the import limit:
    # its own import deadline must not run out meanwhile.
    "ex4_masking__endless_import_ignoring_signals",
    # In the sandbox its kill(-1) must reach no other exercise's child (ex3's,
    # graded while ex4's is started ahead, died of it and lost points).
    "ex4_masking__kill_parent_group_at_import",
    # ex1's child, started ahead while ex0 is graded, is stopped by ex0's code.
    "ex0_weighted_sum__stop_the_next_child",
    "ex0_weighted_sum__stop_each_process",
}

# Without the sandbox, a grader that runs as root gives its children a user
# of their own (grader/child/child_user.py): the kernel keeps them from what that
# user may not read, write or signal, with no namespaces at all. CI runs as
# root, and so tests that; a grader of another user runs its children as
# itself.
# Attacks that only the sandbox stops, and why. Tracing, memory, descriptors,
# limits and priority of other processes are refused without the sandbox too
# (grader/child/confine.py). Without it the test asserts what --sandbox off does
# guarantee, and that the attack did what it says (so that its failure in
# the sandbox is the sandbox's doing).
#
# These need namespaces (a network namespace, a mount namespace for the view
# of the file system, memory-backed file systems of the sandbox's own):
NEEDS_NAMESPACES = {
    "ex0_weighted_sum__solutions_walk": "finds a copy of the solutions by walking the file system and earns full marks: any copy every user may read (the checkout the tests run from); the grader's own it cannot read as a user of its own (ex0_weighted_sum__solutions_by_grader_path)",
    "ex0_weighted_sum__network": "connects to the grader's loopback (and anywhere else the machine can reach) and earns full marks",
    "ex0_weighted_sum__fill_tmpfs": "nothing caps what a child writes to disk in all (16 MB a file); the attack writes into its own folders there",
}
# These need a user other than the grader's: the sandbox, or a root grader's
# own user for its children.
NEEDS_ANOTHER_USER = {
    "ex0_weighted_sum__solutions_by_grader_path": "reads the grader's solutions/ and hidden checks by their path (from the grader package's) and earns full marks",
    "ex0_weighted_sum__hidden_checks_encoded": "reads the hidden checks and carries them out encoded (in an exception message, and as the numbers it returns), past the line-by-line redaction",
    "ex0_weighted_sum__kill_parent": "the child, re-parented to the grader once the zygote is dead, SIGKILLs the grader (when it wins the race with the grader ending it): no report",
    "ex0_weighted_sum__kill_grader": "finds the grader in /proc and SIGKILLs it: no report",
    "ex0_weighted_sum__kill_parent_group": "SIGKILLs the zygote's process group, which is the grader's: no report",
    "ex4_masking__kill_parent_group_at_import": "SIGKILLs its parent's process group at import, unguarded: the zygote's, which is the grader's: no report (in the sandbox: kill(-1))",
    "ex0_weighted_sum__kill_all": "kill(-1, SIGKILL) as the grader's user kills every process of that user (of the machine, as root): never run without the sandbox or a user of the children's own",
    "ex0_weighted_sum__stop_the_next_child": "kill(-1, SIGSTOP) as the grader's user stops every process of that user, the test run included: never run without the sandbox or a user of the children's own",
    "ex0_weighted_sum__stop_each_process": "SIGSTOPs every process in /proc it may signal: as the grader's user, the test run included: never run without the sandbox or a user of the children's own",
    "ex0_weighted_sum__write_grader_folders": "rewrites the grader's checks, solutions and code, which the next grading would use",
    "ex0_weighted_sum__hardlink_runtime": "replaces the submission's files with hard links to the solutions (the grader refuses them when it reads the folder again)",
    "ex0_weighted_sum__answers_for_the_next_student": "leaves its answers in folders of its own below root's sticky /tmp/.X11-unix (and others) for the next student's code to load: nothing of the grader's own user is removed there",
    "ex3_scaling__answers_in_every_sticky_folder": "leaves its answers straight in every sticky world-writable folder of root's for a later grading's code to load",
}
SANDBOX_ONLY = NEEDS_NAMESPACES if OWN_USER else {**NEEDS_NAMESPACES, **NEEDS_ANOTHER_USER}
# --sandbox off: the attack may kill the grading process itself, so there may
# be no report; the test then asserts that nothing outside the output folder
# changed and that no process is left.
GRADER_KILLED_OFF = {"ex0_weighted_sum__kill_parent", "ex0_weighted_sum__kill_grader", "ex0_weighted_sum__kill_parent_group", "ex4_masking__kill_parent_group_at_import"} & set(SANDBOX_ONLY)
# --sandbox off: never run.
NOT_WITHOUT_SANDBOX = {"ex0_weighted_sum__kill_all", "ex0_weighted_sum__stop_the_next_child", "ex0_weighted_sum__stop_each_process"} & set(SANDBOX_ONLY)
# --sandbox off: the attack writes there, and the test checks what it wrote.
PROJECT_WRITTEN_OFF = {"ex0_weighted_sum__write_grader_folders"} & set(SANDBOX_ONLY)
SUBMISSION_WRITTEN_OFF = {"ex0_weighted_sum__hardlink_runtime"} & set(SANDBOX_ONLY)


def as_graders_user(mode: str) -> bool:
    """Children run as the grader's own user: they may read and write what
    it may (the test's folders, their own copy of the submission)."""
    return mode == "off" and not OWN_USER


def unconfined(mode: str, attack: str) -> bool:
    """Whether this run shows what the attack does where nothing stops it
    (its SANDBOX_ONLY effect): --sandbox off, and nothing of this machine's
    without namespaces stops it either."""
    return mode == "off" and attack in SANDBOX_ONLY


# The exercise file is replaced by a symlink / a hard link to the reference solution.
SYMLINKED = {"ex0_weighted_sum__symlink"}
HARDLINKED = {"ex0_weighted_sum__hardlink"}

# Their honest work at import takes seconds of processor time (forks that
# each touch a GiB, a GiB written to memory files), against an import limit
# of a few seconds of wall clock: their gradings get the tests' share of the
# processors, not the rest of the catalogue's smaller one (background_share),
# or a busy foreground would push their imports past the limit.
HEAVY_AT_IMPORT = {"ex0_weighted_sum__memory_in_forks", "ex0_weighted_sum__memory_in_memfd"}


def warm_tree(warm) -> Callable[[], list[int]]:
    """A warm grader's server, started now if need be, and what is under it."""
    warm.start()
    return lambda: [warm.pid, *descendants(warm.pid)] if warm.pid is not None else []


# Started first: they wait out time limits.
SLOW = [
    "ex0_weighted_sum__sigterm_loop",
    "ex0_weighted_sum__endless_import",
    "ex4_masking__endless_import_ignoring_signals",
    "ex0_weighted_sum__kill_zygote",
    "ex0_weighted_sum__slow_import",
    "ex0_weighted_sum__solutions_walk",
]


def _processors() -> int:
    """The processors this run may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# Gradings side by side: one per processor, and one more to wait out a time
# limit (SLOW go first) while the others keep the processors busy; at most 6,
# for memory: each holds a grader and a zygote that imported torch, and some
# attacks (memory_in_forks, memory_in_memfd: side by side in ATTACKS) touch
# up to their 2 GiB limit.
WORKERS = min(_processors(), 5) + 1

TAG_ENV = b"ATTACK_TAG="
PROJECT_PARTS = ("grader", "checks", "solutions")


def exercise_of(attack: str) -> str:
    return attack.split("__", 1)[0]


def expected_points(attack: str, mode: str):
    """A notebook earns what the .py earns in the sandbox, unless the attack says otherwise."""
    want = EXPECTED_POINTS.get(attack, 0)
    if not isinstance(want, dict):
        return want
    return want.get(mode, want["sandbox"]) if mode == NOTEBOOK else want[mode]


def feedback_words(attack: str, mode: str) -> list:
    if mode == "off" and OWN_USER and attack in FEEDBACK_OWN_USER:
        return FEEDBACK_OWN_USER[attack]
    words = FEEDBACK.get(attack, [])
    return words.get(mode, []) if isinstance(words, dict) else words


def _skip_reason(mode: str, attack: str | None = None) -> str | None:
    if mode in ("sandbox", NOTEBOOK) and not SANDBOX:
        return NO_SANDBOX
    if mode == "off" and attack in NOT_WITHOUT_SANDBOX:
        return "--sandbox off: " + SANDBOX_ONLY[attack]
    return None


def mode_params(attacks=None, modes=MODES) -> list:
    """pytest params (mode, attack) or (mode,), with ids like ``off-ATTACK``.
    The SLOW attacks, which wait out the child's time limits, are not run as
    notebooks: how the answer was handed in changes nothing of what its code
    does once running, and the waits are most of the catalogue's time."""
    out = []
    for attack in attacks if attacks is not None else [None]:
        for mode in (m for m in modes if not (m == NOTEBOOK and attack in SLOW)):
            reason = _skip_reason(mode, attack)
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            values = (mode,) if attack is None else (mode, attack)
            out.append(pytest.param(*values, id=mode if attack is None else f"{mode}-{attack}", marks=marks))
    return out


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


def kill_and_reap(pids) -> None:
    """Clean up after a failed test: this machine is shared."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)  # only our own children can be reaped here; the starter's server reaps its own
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


# --- secrets -------------------------------------------------------------------


def _squeeze(text: str) -> str:
    """Without any white space: the terminal report wraps and indents lines."""
    return re.sub(r"\s+", "", text)


def _secret_lines() -> list[str]:
    """Every line of 20 characters or more of a hidden check or of a
    solution region, squeezed."""
    lines = set()
    for path in glob.glob(os.path.join(ROOT, "checks", "hidden", "*.py")):
        with open(path, encoding="utf-8") as f:
            lines |= {line.strip() for line in f}
    for path in glob.glob(os.path.join(SOLUTIONS, "*.py")):
        with open(path, encoding="utf-8") as f:
            for region in solution_regions(f.read()):
                lines |= {line.strip() for line in region.splitlines()}
    return sorted({_squeeze(line) for line in lines if len(line) >= 20})


SECRET_LINES = _secret_lines()


def _strings(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in _strings(k) + _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def leaked_lines(text: str) -> list[str]:
    squeezed = _squeeze(text)
    return [line for line in SECRET_LINES if line in squeezed]


# --- grading the attacks -----------------------------------------------------


@dataclass
class Outcome:
    mode: str
    tag: str
    folder: str
    attack_dir: str
    project: str
    json_path: str
    returncode: int
    results: dict | None
    stdout: str
    stderr: str
    seconds: float
    before: dict
    after: dict
    project_before: dict
    project_after: dict
    survivors: list
    report_after_cleanup: dict | None  # the JSON file read again once the attack's processes had their chance
    loader: dict | None = None  # an attack across students: the later student's report (its ``loader`` role)
    loader_stdout: str = ""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def project_changed(self) -> list[str]:
        keys = set(self.project_before) | set(self.project_after)
        return sorted(k for k in keys if self.project_before.get(k) != self.project_after.get(k))


def as_notebook(source: bytes, exercise: str) -> bytes:
    """A notebook whose answer cell is ``source``. Half of a UTF-16 pair
    written as UTF-8 would write it goes in as JSON escapes it (``"\\ud800"``,
    which decodes to the lone surrogate); other bytes that are not UTF-8 go
    into its JSON as they are (a notebook that is not valid text)."""
    cell = {"cell_type": "code", "execution_count": None, "id": "answer", "metadata": {"exercise": exercise}, "outputs": []}
    nb = {"cells": [dict(cell, source="@SOURCE@")], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    head, tail = json.dumps(nb).encode().split(b'"@SOURCE@"')
    try:
        text = json.dumps(source.decode("utf-8", "surrogatepass")).encode()
    except UnicodeDecodeError:
        text = b'"' + source.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"'
    return head + text + tail


def attack_source(attack: str, tag: str, attack_dir: str, port: int, role: str = "writer") -> bytes:
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        source = f.read()
    source = source.replace(b"__ATTACK_TAG__", tag.encode()).replace(b"__ATTACK_DIR__", attack_dir.encode())
    return source.replace(b"__ATTACK_PORT__", str(port).encode()).replace(b"__ATTACK_ROLE__", role.encode())


def across_students(attack: str) -> bool:
    """Whether the attack is graded again as the loader of a later student."""
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        return b"__ATTACK_ROLE__" in f.read()


ACROSS = [attack for attack in ATTACKS if across_students(attack)]
STICKY = ("/tmp/.X11-unix", "/tmp/.ICE-unix")


def make_sticky() -> list[str]:
    """Root's sticky folders of ``STICKY`` that this machine lacks, made
    (as root only: another user's would not be root's). Returns those made."""
    made = []
    for path in STICKY if os.geteuid() == 0 else ():
        if not os.path.lexists(path):
            os.mkdir(path)
            os.chmod(path, 0o1777)
            made.append(path)
    return made


def project_template(dest: str) -> str:
    """The parts of the project grading uses, copied once, with their byte
    code compiled afresh (each grading then starts from a copy of this)."""
    for part in PROJECT_PARTS:
        shutil.copytree(os.path.join(ROOT, part), os.path.join(dest, part), ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(dest, quiet=2)
    return dest


def copy_project(template: str, dest: str) -> str:
    """A copy of the template, times kept (so its byte code stays valid). It
    is graded with PYTHONDONTWRITEBYTECODE: any file that appears in it was
    written by an attack."""
    for part in PROJECT_PARTS:
        shutil.copytree(os.path.join(template, part), os.path.join(dest, part))
    return dest


def looks_for_the_grader(attack: str) -> bool:
    """Whether the attack finds processes by their command line, which a
    grader from the warm interpreter does not show as ``-m grader``: such
    attacks get a grader started as a student's is."""
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        return b"cmdline" in f.read()


# Graded by ``python -m grader grade`` itself, a grader of its own each:
# the attacks that look for the grader by its command line, those that may
# damage or kill the grader they run under (where nothing stops them), and
# a few of every kind, so that the command line is tested in each mode. All
# others are graded one after another by long-lived warm graders
# (``grader.student.warm_grader``), as check() grades: what one attack leaves must
# not reach the next attack's grading either.
BY_THE_COMMAND_LINE = {
    "ex0_weighted_sum__stub",
    "ex0_weighted_sum__fake_stdout",
    "ex0_weighted_sum__fake_results_json",
    "ex0_weighted_sum__kill_zygote",
    "ex0_weighted_sum__double_fork_daemon",
    "ex0_weighted_sum__huge_output",
    "ex0_weighted_sum__endless_import",
    "ex3_scaling__answers_in_every_sticky_folder",  # its loader by another grader, once the writer's has ended
}


def by_the_command_line(mode: str, attack: str) -> bool:
    return attack in BY_THE_COMMAND_LINE or looks_for_the_grader(attack) or unconfined(mode, attack)


class WarmGraders:
    """Warm graders for the attacks, at most ``per_mode`` per sandbox option
    (each grades one attack at a time), each started from a copy of the
    project of its own, made when first needed."""

    def __init__(self, root: str, per_mode: int):
        self.root, self.per_mode = root, per_mode
        self.idle: dict[str, list] = {}
        self.made: list = []
        self.lock = threading.Lock()
        self.free = threading.Condition(self.lock)

    def take(self, sandbox: str):
        with self.free:
            while True:
                idle = self.idle.setdefault(sandbox, [])
                if idle:
                    return idle.pop()
                if sum(w.sandbox == sandbox for w in self.made) < self.per_mode:
                    break
                self.free.wait()
            n = len(self.made)
            project = copy_project(os.path.join(self.root, "template"), os.path.join(self.root, "warm", f"{sandbox}-{n}"))
            env = {"PYTHONDONTWRITEBYTECODE": "1", limits_mod.TIME_SCALE: TIME_SCALE}
            warm = warm_grader.WarmGrader(sandbox=sandbox, extra_env=env, project=project)
            self.made.append(warm)
            return warm

    def give_back(self, warm) -> None:
        with self.free:
            self.idle[warm.sandbox].append(warm)
            self.free.notify()

    def close(self) -> None:
        for warm in self.made:
            warm.close()


def run_attack(mode: str, attack: str, root: str, port: int, starter: WarmStarter, warm_graders: "WarmGraders") -> Outcome:
    """Grade the attack in ``mode``: by the real command line from a fresh
    copy of the project (``by_the_command_line``), started by ``starter``
    (``tests/support/warm_start.py``: forked from its warm interpreter where the
    attack cannot tell, else a new interpreter); or by a warm grader of
    ``warm_graders`` that grades attack after attack from its own copy."""
    exercise = exercise_of(attack)
    tag = "atk" + secrets.token_hex(6)  # 15 characters: all that /proc/PID/comm holds
    attack_dir = os.path.join(root, mode, attack)
    os.makedirs(attack_dir)
    warm = None
    if by_the_command_line(mode, attack):
        project = copy_project(os.path.join(root, "template"), os.path.join(attack_dir, "project"))
    else:
        warm = warm_graders.take(MODE_OPTIONS[mode][1])
        project = warm.project
    try:
        out = _grade_attack(mode, attack, exercise, tag, attack_dir, project, port, starter, warm)
        if across_students(attack) and mode != NOTEBOOK:
            out.loader, out.loader_stdout = _grade_loader(mode, attack, exercise, tag, attack_dir, project, port, starter, warm)
        return out
    finally:
        if warm is not None:
            warm_graders.give_back(warm)


def _grade_loader(mode, attack, exercise, tag, attack_dir, project, port, starter, warm) -> tuple:
    """The attack as ``loader`` in a second student's submission, graded
    once the writer's grading is over, as it was: by the same warm grader,
    or by a grader of its own. Returns its report and stdout."""
    folder = make_submission(os.path.join(attack_dir, "loader"), base=os.path.join(project, "solutions"))
    with open(os.path.join(folder, exercise + ".py"), "wb") as f:
        f.write(attack_source(attack, tag, attack_dir, port, role="loader"))
    json_path = folder + "-results.json"
    args = [folder, "--json", json_path, "--only", exercise]
    env = {**os.environ, "PYTHONPATH": project, "PYTHONDONTWRITEBYTECODE": "1", limits_mod.TIME_SCALE: TIME_SCALE}
    try:
        if warm is None:
            stdout = starter.run(["grade", *args, *MODE_OPTIONS[mode]], cwd=project, env=env, timeout=600).stdout
        else:
            stdout = warm.grade(GradeRequest(folder, only=exercise, json_path=json_path)).report
    finally:
        kill_and_reap(wait_for_none(tag))
    return (json.loads(_read(json_path)) if os.path.exists(json_path) else None), stdout


def _grade_attack(mode, attack, exercise, tag, attack_dir, project, port, starter, warm) -> Outcome:
    solution = os.path.join(project, "solutions", exercise + ".py")
    folder = make_submission(os.path.join(attack_dir, "submission"), base=os.path.join(project, "solutions"))
    target = os.path.join(folder, exercise + ".py")
    os.remove(target)
    if mode == NOTEBOOK:
        target = os.path.join(folder, exercise + ".ipynb")
    if attack in SYMLINKED:
        os.symlink(solution, target)
    elif attack in HARDLINKED:
        os.link(solution, target)
    else:
        source = attack_source(attack, tag, attack_dir, port)
        with open(target, "wb") as f:
            f.write(as_notebook(source, exercise) if mode == NOTEBOOK else source)
    before, project_before = snapshot(folder), snapshot(project)
    json_path = folder + "-results.json"
    full = attack in FULL_RUNS and mode != NOTEBOOK  # what a notebook does to the others, the .py's run shows
    args = [folder, "--json", json_path] + ([] if full else ["--only", exercise])
    env = {**os.environ, "PYTHONPATH": project, "PYTHONDONTWRITEBYTECODE": "1", limits_mod.TIME_SCALE: time_scale(attack)}
    start = time.monotonic()
    try:
        if warm is None:
            # A session of its own: an attack that signals the grader's process
            # group reaches the grader, never this test run.
            proc = starter.run(["grade", *args, *MODE_OPTIONS[mode]], cwd=project, env=env, timeout=600, new_interpreter=looks_for_the_grader(attack))
            returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        else:
            # Its sandbox is the warm grader's own.
            with background_share.at_the_tests_share(warm_tree(warm)) if attack in HEAVY_AT_IMPORT else contextlib.nullcontext():
                graded = warm.grade(GradeRequest(folder, only=None if full else exercise, json_path=json_path))
            returncode, stdout, stderr = graded.code, graded.report, graded.notes
        results = json.loads(_read(json_path)) if os.path.exists(json_path) else None
    finally:
        survivors = wait_for_none(tag)
        kill_and_reap(survivors)
    seconds = time.monotonic() - start
    try:
        report_after_cleanup = json.loads(_read(json_path))
    except ValueError:
        report_after_cleanup = None
    return Outcome(
        mode,
        tag,
        folder,
        attack_dir,
        project,
        json_path,
        returncode,
        results,
        stdout,
        stderr,
        seconds,
        before,
        snapshot(folder),
        project_before,
        snapshot(project),
        survivors,
        report_after_cleanup,
    )


class Listener:
    """A TCP port on the loopback that records the first line each
    connection sends (attacks send their tag)."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.heard: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    self.heard.append(conn.recv(64).decode(errors="replace").strip())
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


def has_checks(exercise: str) -> bool:
    return any(os.path.exists(os.path.join(ROOT, "checks", kind, f"test_{exercise}.py")) for kind in ("public", "hidden"))


def selected_pairs(items) -> list[tuple[str, str]]:
    """The (mode, attack) pairs the selected tests of this file name, the
    SLOW first; none that is skipped, and none on an exercise without checks."""
    selected = set()
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.path.name == os.path.basename(__file__) and "attack" in params and item.get_closest_marker("skip") is None:
            selected.add((params["mode"], params["attack"]))
    order = [(m, a) for a in SLOW for m in ATTACK_MODES if (m, a) in selected]
    order += [(m, a) for a in ATTACKS for m in ATTACK_MODES if (m, a) in selected and a not in SLOW]
    return [(m, a) for m, a in order if has_checks(exercise_of(a))]


class Catalogue:
    """The gradings of the catalogue, under way in the background in a pool
    of threads, each grader started by one ``WarmStarter`` (whose server is
    the subreaper of every grader and of what they leave behind).
    ``outcome(mode, attack)`` waits for one (and starts it first if it was
    not among ``pairs``)."""

    def __init__(self, pairs, root: str):
        self.starter = WarmStarter()
        self.root = root
        self.made_sticky = make_sticky()
        project_template(os.path.join(root, "template"))
        self.warm_graders = WarmGraders(root, WORKERS)
        self.listener = Listener()
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS)
        self.futures = {pair: self._submit(*pair) for pair in pairs}

    def _submit(self, mode: str, attack: str) -> concurrent.futures.Future:
        return self.pool.submit(run_attack, mode, attack, self.root, self.listener.port, self.starter, self.warm_graders)

    def outcome(self, mode: str, attack: str) -> Outcome:
        if (mode, attack) not in self.futures:
            self.futures[mode, attack] = self._submit(mode, attack)
        return self.futures[mode, attack].result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.warm_graders.close()
        self.listener.close()
        self.starter.close()
        for path in self.made_sticky:
            try:
                os.rmdir(path)  # the machine's to use from now on too, unless empty
            except OSError:
                pass


_started: Catalogue | None = None  # started by start_in_background, once its ``after`` has returned
_starting: list[threading.Thread] = []  # the thread that waits for ``after``, then starts it
_stopped = threading.Event()


def start_in_background(items, root: str, after: Callable[[], object] = lambda: None) -> None:
    """Start grading the attacks the selected tests name once ``after()``
    has returned (conftest.py calls this after collection, with ``after``
    waiting for the docs builds, which the first tests wait for, and runs
    this file's tests last), at a smaller share of the processors than the
    tests' (``background_share``): the catalogue's gradings, and the time
    limits some of them wait out, overlap the rest of the suite."""
    pairs = selected_pairs(items)
    if not pairs or _starting or _started is not None:
        return

    def start() -> None:
        global _started
        after()
        # Its graders, and all they start, give way to the tests (nothing
        # waits for them till this file's turn): see background_share.
        background_share.lower_this_thread()
        if not _stopped.is_set():
            _started = Catalogue(pairs, root)

    _starting.append(threading.Thread(target=start, name="attack-catalogue", daemon=True))
    _starting[0].start()


def _wait_for_start() -> None:
    for thread in _starting:
        thread.join()


def wait_in_background() -> None:
    """Return once the gradings started by ``start_in_background`` are done (at once if none were)."""
    _wait_for_start()
    started = _started
    if started is not None:
        concurrent.futures.wait(list(started.futures.values()))


def stop_background() -> None:
    global _started
    _stopped.set()
    _wait_for_start()
    if _started is not None:
        _started.close()
        _started = None


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, request):
    """The gradings of the (mode, attack) pairs the selected tests name,
    under way in the background (started after collection, or now);
    ``outcomes(mode, attack)`` waits for one. Attacks on exercises that
    have no checks are never run."""
    global _started
    _wait_for_start()
    catalogue = _started or Catalogue(selected_pairs(request.session.items), str(tmp_path_factory.mktemp("attacks")))
    _started = None

    def get(mode: str, attack: str) -> Outcome:
        if not has_checks(exercise_of(attack)):
            pytest.skip(f"{exercise_of(attack)} has no checks yet, so the attack is never run")
        reason = _skip_reason(mode, attack)
        if reason == NO_SANDBOX and os.environ.get("ATTENTION_CI"):
            pytest.fail("CI must run the catalogue in the sandbox: " + NO_SANDBOX)
        if reason:
            pytest.skip(reason)
        return catalogue.outcome(mode, attack)

    get.catalogue, get.listener = catalogue, catalogue.listener
    yield get
    catalogue.close()


@pytest.mark.parametrize(("mode", "attack"), mode_params(ATTACKS, ATTACK_MODES))
def test_attack(mode, attack, outcomes, full_marks):
    exercise = exercise_of(attack)
    out = outcomes(mode, attack)
    written_off = unconfined(mode, attack) and (attack in PROJECT_WRITTEN_OFF or attack in SUBMISSION_WRITTEN_OFF)

    # (4) the submission folder and (6) the project's folders are untouched,
    # and (5) nothing the attack started is still running
    if not (unconfined(mode, attack) and attack in SUBMISSION_WRITTEN_OFF):  # checked by its own test
        assert not out.changed, f"submission folder changed:\nbefore {out.before}\nafter  {out.after}"
    assert not any("__pycache__" in path for path in out.after)
    if not (unconfined(mode, attack) and attack in PROJECT_WRITTEN_OFF):  # checked by its own test
        assert not out.project_changed, f"the grader's folders changed: {out.project_changed}"
    assert not out.survivors, f"processes left behind: {out.survivors}"

    if unconfined(mode, attack) and attack in GRADER_KILLED_OFF and out.returncode == -signal.SIGKILL:
        # SANDBOX_ONLY: the attack may kill the grader, a process of its own
        # user. Whether its kill lands before the grader has ended the child
        # is a race (CI has seen both), so the grader either died without a
        # report, or finished and is held to the checks below like any other.
        assert out.results is None
        return

    # (1) the grader finished and wrote its report
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.results is not None
    points = points_by_exercise(out.results)

    # (2) the attacked exercise earns what it honestly earns, and says why not more
    want = expected_points(attack, mode)
    want = full_marks[exercise] if want == FULL else want
    tests = [t for t in out.results["tests"] if t["tags"][0] == exercise]
    assert tests, "the attacked exercise was not graded"
    if mode == NOTEBOOK:
        # Nothing more than the same .py earns in the sandbox (a notebook may
        # earn less: one that is not UTF-8, or the solution linked as one).
        assert points[exercise] <= want, _summary(out, exercise)
    else:
        assert points[exercise] == want, _summary(out, exercise)
    if want == 0 and mode != NOTEBOOK:
        fill = {"file": os.path.join(out.folder, exercise + ".py"), "line": _syntax_error_line(attack)}
        for t in tests:
            assert t["status"] == "failed"
            for word in feedback_words(attack, mode):
                options = [w.format(**fill) for w in (word if isinstance(word, tuple) else (word,))]
                assert any(w in t["output"] for w in options), f"{t['name']}: {options!r} not in feedback:\n{t['output']}"

    # (3) the other exercises lose nothing
    if attack in FULL_RUNS and mode != NOTEBOOK:
        for ex in IDS:
            if ex != exercise:
                assert points[ex] == full_marks[ex], f"{ex}: {points[ex]} of {full_marks[ex]}\n" + _summary(out, ex)
    else:
        assert {t["tags"][0] for t in out.results["tests"]} == {exercise}

    # (7) no text of a hidden check or a solution in the report
    assert not leaked_lines("\n".join(_strings(out.results))), leaked_lines("\n".join(_strings(out.results)))
    assert not leaked_lines(out.stdout + out.stderr), leaked_lines(out.stdout + out.stderr)

    # the report on disk is still the grader's once the attack's processes had their chance
    assert out.report_after_cleanup == out.results or written_off


def _syntax_error_line(attack: str) -> int:
    with open(os.path.join(ATTACKS_DIR, attack + ".py"), "rb") as f:
        for n, line in enumerate(f, 1):
            if b"SYNTAX ERROR HERE" in line:
                return n
    return 0


def _summary(out: Outcome, exercise: str) -> str:
    return "\n".join(f"{t['name']}: {t['score']}/{t['max_score']}\n{t['output']}" for t in out.results["tests"] if t["tags"][0] == exercise)


@pytest.mark.parametrize(("mode", "attack"), mode_params(ACROSS))
def test_answers_left_for_a_later_student(outcomes, mode, attack, full_marks):
    """The writer left its answers in root's sticky world-writable folders
    (it says how many places it used: without the sandbox several); the loader, a
    later student's code, found none of them and earns 0 with the stub's
    feedback, but where children run as the grader's own user (SANDBOX_ONLY:
    nothing of that user is removed), where it loads them and earns full
    marks."""
    exercise = exercise_of(attack)
    out = outcomes(mode, attack)
    stashed = [int(n) for n in re.findall(r"STASHED: (\d+)", "\n".join(_strings(out.results)))]
    assert stashed, out.stdout
    if mode == "off":
        assert stashed[-1] >= 2, out.stdout  # several places
    assert out.loader is not None, out.loader_stdout
    points = points_by_exercise(out.loader)[exercise]
    if unconfined(mode, attack):
        assert points == full_marks[exercise], out.loader_stdout
    else:
        assert "LOADED:" not in out.loader_stdout, out.loader_stdout
        assert points == 0
        assert all("not implemented yet" in t["output"] for t in out.loader["tests"] if t["tags"][0] == exercise)


def test_catalogue_is_complete():
    """The lists above name only attacks that exist, every SANDBOX_ONLY
    special case says why, and the attacks that keep the tests' share of the
    processors are graded where it is given (by a warm grader)."""
    named = set(EXPECTED_POINTS) | set(FEEDBACK) | set(FEEDBACK_OWN_USER) | FULL_RUNS | set(NEEDS_NAMESPACES) | set(NEEDS_ANOTHER_USER) | SYMLINKED | HARDLINKED | set(SLOW)
    named |= GRADER_KILLED_OFF | NOT_WITHOUT_SANDBOX | PROJECT_WRITTEN_OFF | SUBMISSION_WRITTEN_OFF
    assert named | SPINNERS <= set(ATTACKS), (named | SPINNERS) - set(ATTACKS)
    assert SPINNERS <= BY_THE_COMMAND_LINE, "a spinner's shorter limits are its own grader's: never a shared warm grader's"
    assert HEAVY_AT_IMPORT <= set(ATTACKS)
    assert not [(m, a) for m in ATTACK_MODES for a in HEAVY_AT_IMPORT if by_the_command_line(m, a)], "the tests' share is given to a warm grader's processes"
    assert GRADER_KILLED_OFF | NOT_WITHOUT_SANDBOX | PROJECT_WRITTEN_OFF | SUBMISSION_WRITTEN_OFF <= set(SANDBOX_ONLY)
    assert len(ATTACKS) >= 30


# --- what particular attacks must not achieve ---------------------------------


@pytest.mark.parametrize("mode", mode_params())
def test_printed_fakes_stay_in_their_box(outcomes, mode):
    """A child's prints are shown indented under "your code printed", with
    terminal control characters made harmless: the one real total line stays
    the only one, and nothing can repaint it."""
    out = outcomes(mode, "ex0_weighted_sum__fake_stdout")
    assert "\x1b" not in out.stdout and "\x9b" not in out.stdout
    totals = [line for line in out.stdout.splitlines() if line.startswith("总分 / total")]
    max_score = sum(t["max_score"] for t in out.results["tests"])
    assert len(totals) == 1 and re.search(rf"\b0 / {max_score:g}$", totals[0]), totals
    assert "100 / 100" in out.stdout  # the fake table was printed, but only inside the box
    assert out.results["score"] == 0


@pytest.mark.parametrize("mode", mode_params())
def test_fake_results_json_loses(outcomes, mode):
    out = outcomes(mode, "ex0_weighted_sum__fake_results_json")
    assert out.report_after_cleanup == out.results
    assert points_by_exercise(out.results)["ex0_weighted_sum"] == 0
    fake, cwd_record = os.path.join(out.attack_dir, "results.json"), os.path.join(out.attack_dir, "child-cwd.txt")
    if as_graders_user(mode):
        with open(fake) as f:  # the fake beside the submission was written...
            assert '"score": 100.0' in f.read()  # ...and is nobody's report
        with open(cwd_record) as f:
            assert not os.path.exists(f.read()), "the child's private copy of the submission was not removed"
    else:
        # The sandbox's promise, and the children's own user's: nothing of the grader's can be written.
        assert not os.path.exists(fake) and not os.path.exists(cwd_record)


@pytest.mark.parametrize(("mode", "attack"), mode_params(["ex0_weighted_sum__pickle_payload", "ex0_weighted_sum__return_pickle_dict"]))
def test_pickle_payloads_never_run(outcomes, mode, attack):
    """The payload would run in the grading process (outside any sandbox)
    and leave a marker in the test's folder."""
    out = outcomes(mode, attack)
    assert not [name for name in os.listdir(out.attack_dir) if name.startswith("pwned")]


@pytest.mark.parametrize("mode", mode_params())
def test_feedback_stays_short(outcomes, mode):
    """A child decides what its error says; the grader trims it."""
    out = outcomes(mode, "ex0_weighted_sum__huge_exception")
    assert all(len(t["output"]) < 5000 for t in out.results["tests"]), [len(t["output"]) for t in out.results["tests"]]
    assert len(_read(out.json_path)) < 100_000


@pytest.mark.parametrize("mode", mode_params())
def test_hidden_checks_are_redacted(outcomes, mode):
    """Printed or raised, the hidden checks never reach the report (test_attack
    looks for every line); without the sandbox the attack read them, and the
    redaction mark stands where they were. In the sandbox the child's
    unflushed print of what it found (nothing) still reaches the report."""
    out = outcomes(mode, "ex0_weighted_sum__hidden_checks_print")
    if as_graders_user(mode):
        assert _squeeze(MARK) in _squeeze(out.stdout)  # what it printed, redacted
        assert all(MARK in t["output"] for t in out.results["tests"])  # what it raised, redacted
    else:
        assert "nohiddenchecksreadableunder" in _squeeze(out.stdout), out.stdout
        assert MARK not in out.stdout


def _decoded_leaks(text: str) -> list[bytes]:
    out = []
    for token in re.findall(r"LEAK:([A-Za-z0-9+/=]+)", text):
        try:
            out.append(zlib.decompress(base64.b64decode(token)))
        except (ValueError, zlib.error):
            out.append(b"")
    return out


def _returned_bytes(feedback: str) -> list[bytes]:
    """The numbers of each "got" in a check's feedback, as bytes."""
    out = []
    for got in re.findall(r"得到 / got:(.*?)期望 / expected:", feedback, flags=re.S):
        numbers = [float(n) for n in re.findall(r"-?\d+\.\d+", got)]
        out.append(bytes(int(n) % 256 for n in numbers))
    return out


@pytest.mark.parametrize("mode", mode_params())
def test_encoded_hidden_checks(outcomes, mode):
    """SANDBOX_ONLY: without the sandbox a child carries out what it can read
    in any encoding it likes, raised or returned (this shows the attack
    works); in the sandbox there is nothing to read."""
    out = outcomes(mode, "ex0_weighted_sum__hidden_checks_encoded")
    report = "\n".join(_strings(out.results)) + out.stdout
    leaks = _decoded_leaks("\n".join(_strings(out.results)))
    with open(os.path.join(out.project, "checks", "hidden", "test_ex0_weighted_sum.py"), "rb") as f:
        secret = f.read()
    returned = [b for t in out.results["tests"] for b in _returned_bytes(t["output"]) if len(b) >= 8]
    assert returned  # some calls returned numbers, which the feedback shows
    if unconfined(mode, "ex0_weighted_sum__hidden_checks_encoded"):
        assert secret in leaks
        assert any(b in secret for b in returned), returned
    else:
        assert not leaks and "LEAK:" not in report
        assert "nothing to leak" in report
        assert not any(b in secret for b in returned), returned


@pytest.mark.parametrize("mode", mode_params())
def test_network(outcomes, mode):
    """Without the sandbox the attack reached the test's port on the loopback;
    in the sandbox nothing did."""
    out = outcomes(mode, "ex0_weighted_sum__network")
    heard = [line for line in outcomes.listener.heard if line == out.tag]
    if unconfined(mode, "ex0_weighted_sum__network"):
        assert heard
    else:
        assert not heard, heard


@pytest.mark.parametrize("mode", mode_params())
def test_grader_out_of_sight(outcomes, mode):
    """SANDBOX_ONLY: without the sandbox the attack found the grader in /proc
    and killed it (test_attack); as a user of the children's own it found
    the grader and could not signal it; in the sandbox's PID namespace there
    was no grader to find."""
    out = outcomes(mode, "ex0_weighted_sum__kill_grader")
    if unconfined(mode, "ex0_weighted_sum__kill_grader"):
        assert out.returncode == -signal.SIGKILL
    elif mode == "off":
        assert out.returncode == 0
        assert re.search(r"graderprocessesfound:\[\d+", _squeeze(out.stdout)), out.stdout
    else:
        assert "graderprocessesfound:[]" in _squeeze(out.stdout), out.stdout


@pytest.mark.parametrize("mode", mode_params())
def test_write_other_exercises(outcomes, mode):
    """Without the sandbox each exercise imports from a fresh private copy, in
    the sandbox from one read-only copy per submission (test_attack checks the
    other exercises keep full marks). Without the sandbox the attack wrote
    into its own copy and logged it; in the sandbox it could do neither."""
    out = outcomes(mode, "ex0_weighted_sum__write_other_exercises")
    log = os.path.join(out.attack_dir, "write-log.txt")
    if as_graders_user(mode):
        with open(log) as f:
            written = f.read().split("\n")
        assert sum(os.path.basename(p).startswith("ex") for p in written) >= len(IDS) - 1, written
    else:
        assert not os.path.exists(log)


@pytest.mark.parametrize("mode", mode_params())
def test_plant_modules_for_later(outcomes, mode):
    """Planted torch.py and numpy.py, later exercises renamed and replaced,
    the folder made read-only (test_attack checks the later exercises keep
    full marks). Without the sandbox it all happened in ex2's own folder; in
    the sandbox, where one read-only copy serves the submission, none of it."""
    out = outcomes(mode, "ex2_scores__plant_modules_for_later")
    log = os.path.join(out.attack_dir, "plant-log.txt")
    if as_graders_user(mode):
        with open(log) as f:
            done = set(f.read().split("\n"))
        assert {"torch.py", "numpy.py", "chmod"} | {ex + ".py" for ex in IDS[3:]} <= done, done
    else:
        assert not os.path.exists(log)


@pytest.mark.parametrize("mode", mode_params())
def test_write_grader_folders(outcomes, mode):
    """SANDBOX_ONLY: without the sandbox the attack rewrote the (copied)
    project's checks, solution and grader code; in the sandbox nothing of it
    changed (test_attack hashes the folders)."""
    out = outcomes(mode, "ex0_weighted_sum__write_grader_folders")
    if unconfined(mode, "ex0_weighted_sum__write_grader_folders"):
        changed = set(out.project_changed)
        assert {os.path.join("checks", "conftest.py"), os.path.join("solutions", "ex0_weighted_sum.py"), os.path.join("grader", "engine", "plugin.py")} <= changed, changed
    else:
        assert not out.project_changed


@pytest.mark.parametrize("mode", mode_params())
def test_hardlink_runtime(outcomes, mode):
    """SANDBOX_ONLY: without the sandbox the child replaced the submission's
    files with hard links to the solutions; the grader refuses every one of
    them when it reads the folder again, so a regrade earns nothing. In the
    sandbox the folder is untouched (test_attack)."""
    out = outcomes(mode, "ex0_weighted_sum__hardlink_runtime")
    if not unconfined(mode, "ex0_weighted_sum__hardlink_runtime"):
        assert not out.changed
        return
    teacher = submission_mod.teacher_files([os.path.join(out.project, "solutions"), os.path.join(out.project, "checks")])
    sub = submission_mod.load(out.folder, teacher=teacher)
    for ex in IDS:
        linked = os.stat(os.path.join(out.folder, ex + ".py"))
        solution = os.stat(os.path.join(out.project, "solutions", ex + ".py"))
        assert (linked.st_dev, linked.st_ino) == (solution.st_dev, solution.st_ino), ex  # the attack ran
        assert sub.files[ex].source is None and "hard link" in sub.files[ex].problem.en, ex


@pytest.mark.parametrize("mode", mode_params())
def test_memory_file_systems_are_capped(outcomes, mode):
    """In the sandbox the only writable places are its /tmp and /dev/shm,
    each with a size cap (the root and /dev are read-only): what the attack
    wrote in all fits in them. Without the sandbox it wrote its 96 MB into its
    private copy or its own TMPDIR (which shows it ran)."""
    out = outcomes(mode, "ex0_weighted_sum__fill_tmpfs")
    written = {int(n) for n in re.findall(r"(\d+) bytes written in all", "\n".join(_strings(out.results)))}
    assert len(written) == 1, written
    if mode == "off":
        assert written == {96 << 20}
    else:
        assert written.pop() <= sandbox_mod.TMP_BYTES + sandbox_mod.SHM_BYTES


def test_links_to_the_teachers_files_are_refused(tmp_path):
    """The grader's own files earn nothing under another name: a hard link in
    a submission (the attack ex0_weighted_sum__hardlink), or a submission
    folder that is a symbolic link to solutions/. At their own path they are
    the teacher grading the reference."""
    teacher = submission_mod.teacher_files([SOLUTIONS, os.path.join(ROOT, "checks")])
    assert all(f.source is not None for f in submission_mod.load(SOLUTIONS, teacher=teacher).files.values())
    linked = tmp_path / "linked"
    linked.symlink_to(SOLUTIONS, target_is_directory=True)
    for f in submission_mod.load(str(linked), teacher=teacher).files.values():
        assert f.source is None and "hard link" in f.problem.en, f


def test_no_process_outlives_the_gradings(outcomes):
    """Once every grading is over, the starter's server (the graders'
    parent, and a subreaper) has no child left, and each warm grader has
    nothing but its zygote (and the sandbox around it): no orphan of any
    grader survived, tagged or not."""
    for future in outcomes.catalogue.futures.values():
        future.exception()  # wait; failures are reported by test_attack
    time.sleep(0.5)
    left = children_of(outcomes.catalogue.starter.pid)
    for warm in outcomes.catalogue.warm_graders.made:
        if warm.pid is not None:
            left += below_the_zygote(warm.pid)
    alive = [pid for pid in left if _state(str(pid)) not in ("Z", "X", "?")]
    kill_and_reap(left)
    assert not alive, [(pid, _read(f"/proc/{pid}/cmdline")) for pid in alive]
