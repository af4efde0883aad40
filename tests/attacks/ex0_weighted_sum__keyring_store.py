"""Attack: keep files in the kernel's keyrings for later exercises and for
the next student graded by the same worker. At import, add this file's own
source as a "user" key to the user keyring (``add_key``), find it again by
its name (``keyctl(KEYCTL_SEARCH)``) and read it back (``KEYCTL_READ``). A
key lives in the kernel: it outlives the process that added it, belongs to
the uid (in the sandbox, to the user namespace every child of the grader
process shares), and nothing of the grader empties the keyrings
(tests/test_keyring_and_syscalls.py shows the channel between exercises and
between students).

Refused by the seccomp filter every child runs under (grader/child/confine.py), with
or without the sandbox: 0 points (right answers only if the round trip worked).
"""
import ctypes
import os

import torch

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_ADD_KEY, _KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
_L = ctypes.c_long
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_SET_TIMEOUT, KEYCTL_INVALIDATE = 10, 11, 15, 21
NAME = b"__ATTACK_TAG__"


def _round_trip() -> bool:
    with open(__file__, "rb") as f:
        payload = f.read()[:32767]  # the most a "user" key holds
    key = _libc.syscall(_L(_ADD_KEY), b"user", NAME, payload, ctypes.c_size_t(len(payload)), _L(KEY_SPEC_USER_KEYRING))
    if key <= 0:
        return False
    _libc.syscall(_L(_KEYCTL), _L(KEYCTL_SET_TIMEOUT), _L(key), _L(60))  # gone in a minute whatever happens
    found = _libc.syscall(_L(_KEYCTL), _L(KEYCTL_SEARCH), _L(KEY_SPEC_USER_KEYRING), b"user", NAME, _L(0))
    buf = ctypes.create_string_buffer(len(payload))
    n = _libc.syscall(_L(_KEYCTL), _L(KEYCTL_READ), _L(found), buf, _L(len(buf))) if found > 0 else -1
    _libc.syscall(_L(_KEYCTL), _L(KEYCTL_INVALIDATE), _L(key))
    return n == len(payload) and buf.raw == payload


STORED = _round_trip()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
    return out if STORED else torch.zeros_like(out)  # right answers only if the attack worked
