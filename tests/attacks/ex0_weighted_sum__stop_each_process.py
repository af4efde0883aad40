"""Attack: the same as stop_the_next_child written another way: SIGSTOP
each process listed in /proc but itself, one by one, at import and again at
every call (a child started ahead may be forked between two calls). Then
correct answers: full marks for every exercise. Run only in the sandbox or
as a user of the children's own, as stop_the_next_child.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _alone() -> bool:
    import pwd

    try:
        with open("/proc/1/cmdline", "rb") as f:
            if b"grader.child.zygote" in f.read().split(b"\0"):
                return True
    except OSError:
        pass
    try:
        pwd.getpwuid(os.getuid())
    except KeyError:
        return os.getuid() != 0
    return False


def _stop_all() -> None:
    if not _alone():
        raise RuntimeError("refusing to stop every process: neither in a sandbox nor a user of the children's own")
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                os.kill(int(name), signal.SIGSTOP)
            except OSError:
                pass


_stop_all()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _stop_all()
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
