"""Attack: look through /proc for the grader (a process running
``python -m grader``) and SIGKILL it, at import and at every call; the
answers are all wrong.

Only processes whose command line names this test's folder are touched, so
that the test never hits another grading on a shared machine. Without the
sandbox the grader is there to see and to kill (same user: SANDBOX_ONLY in
test_attacks.py). In the sandbox its own PID namespace shows only the
zygote and its children: nothing is found, the grader carries on, 0 points.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ATTACK_DIR = "__ATTACK_DIR__"
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _graders() -> list:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
        except OSError:
            continue
        runs_grader = any(a == "-m" and b == "grader" for a, b in zip(argv, argv[1:]))
        if runs_grader and any(ATTACK_DIR in a for a in argv):
            found.append(int(name))
    return found


def _kill() -> list:
    victims = _graders()
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return victims


print("grader processes found:", _kill(), flush=True)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _kill()
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
