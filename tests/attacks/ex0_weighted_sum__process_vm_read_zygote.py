"""Attack: read the zygote's memory with process_vm_readv, at the address
where this (forked) child holds the same objects.

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


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _reached() -> bool:
    buf = ctypes.create_string_buffer(8)
    local = _Iovec(ctypes.addressof(buf), 8)
    remote = _Iovec(id(torch), 8)  # a fork: the zygote has torch at the same address
    for pid in TARGETS:
        number = 310 if os.uname().machine == "x86_64" else 270
        # Every argument as a full register (a C int would leave its upper half undefined).
        one, none = ctypes.c_ulong(1), ctypes.c_ulong(0)
        if _libc.syscall(ctypes.c_long(number), ctypes.c_long(pid), ctypes.byref(local), one, ctypes.byref(remote), one, none) > 0:
            return True
    return False


REACHED = _reached()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
    return out if REACHED else torch.zeros_like(out)  # right answers only if the attack worked
