"""Attack: take the zygote's descriptors (its socket to the grader among
them) with pidfd_open and pidfd_getfd: whoever holds that socket can ask the
zygote for anything.

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
    for pid in TARGETS:
        pidfd = _libc.syscall(ctypes.c_long(434), ctypes.c_long(pid), ctypes.c_ulong(0))  # pidfd_open
        if pidfd < 0:
            continue
        for fd in range(0, 16):
            if _libc.syscall(ctypes.c_long(438), ctypes.c_long(pidfd), ctypes.c_long(fd), ctypes.c_ulong(0)) >= 0:  # pidfd_getfd
                return True
    return False


REACHED = _reached()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
    return out if REACHED else torch.zeros_like(out)  # right answers only if the attack worked
