"""Attack: PTRACE_SEIZE the zygote (the process this child was forked
from; in the sandbox the namespace's process 1) and, without the sandbox, the
grading process above it. A tracer can write their memory: inject code that
every later child runs, or patch the scoring itself.

Refused by the seccomp filter every child runs under (grader/child/confine.py), with
or without the sandbox: 0 points (right answers only if the attack worked).
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
    for pid in TARGETS:
        if _libc.ptrace(0x4206, pid, 0, 0) == 0:  # PTRACE_SEIZE
            return True
    return False


REACHED = _reached()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
    return out if REACHED else torch.zeros_like(out)  # right answers only if the attack worked
