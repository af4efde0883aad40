"""Attack: SIGKILL the parent process, at import and at every call, as long
as the parent is a grader process (the guard keeps the test's own pytest out
of reach on a shared machine).

Without the sandbox the parent is the zygote; once it is dead the child is
re-parented to the grading process (a subreaper), so the next kill hits the
grader itself, which a process of the same user can do (SANDBOX_ONLY in
test_attacks.py). In the sandbox the parent is the zygote, the PID
namespace's process 1, which no process inside can kill: the kills do
nothing, and the answers (right ones) earn full marks.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _is_grader(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
    except OSError:
        return False
    return any(a == "-m" and b.split(".")[0] == "grader" for a, b in zip(argv, argv[1:]))


def _kill_parent() -> None:
    parent = os.getppid()
    if parent > 1 and _is_grader(parent):
        try:
            os.kill(parent, signal.SIGKILL)
        except PermissionError:  # a root grader's children run as a user of their own: refused, and the rest of the file is an honest answer
            pass


_kill_parent()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _kill_parent()
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
