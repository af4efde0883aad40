"""Attack: lower the priority of the zygote and of the grading process
(setpriority on their pids, and on every process of this user), so that the
students graded after this one run slowly and hit time limits.

Refused by the seccomp filter (grader/child/confine.py), with or without the
sandbox: 0 points (right answers only if the attack worked).
"""
import ctypes
import os

import torch

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


# The zygote (this child's parent) and, without the sandbox, the grading process (its parent).
TARGETS = [pid for pid in (os.getppid(), _parent_of(os.getppid())) if pid > 0]


def _reached() -> bool:
    """Whether any target's priority changed (a target already at 19, the
    lowest, cannot be lowered further: then nothing can be shown)."""
    before = {pid: _priority(pid) for pid in TARGETS}
    for pid in TARGETS:
        try:
            os.setpriority(os.PRIO_PROCESS, pid, 19)
        except OSError:
            pass
    try:
        os.setpriority(os.PRIO_USER, 0, 19)
    except OSError:
        pass
    return any(_priority(pid) != before[pid] for pid in TARGETS)


def _priority(pid: int):
    try:
        return os.getpriority(os.PRIO_PROCESS, pid)
    except OSError:
        return None


REACHED = _reached()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
    return out if REACHED else torch.zeros_like(out)  # right answers only if the attack worked
