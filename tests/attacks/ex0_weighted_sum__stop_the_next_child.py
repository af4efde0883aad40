"""Attack: kill(-1, SIGSTOP) at import: every process the child may signal
is stopped, among them the next exercise's child, forked ahead and waiting
for its word to import. Then correct answers.

The grader wakes (SIGCONT) a child started ahead before it asks it to
import, and replaces it once if it still does not answer: full marks for
ex0 and for ex1 (the old grader gave ex1 0: "importing the file took over
20 s"). Run only where this reaches nothing of the grader's: in the sandbox
(its PID namespace), or as a user of the children's own; as the grader's
user it would stop the grader and the test run.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _alone() -> bool:
    """In the sandbox (the zygote is process 1), or a user no account has."""
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


if not _alone():
    raise RuntimeError("refusing kill(-1, SIGSTOP): neither in a sandbox nor a user of the children's own")
try:
    os.kill(-1, signal.SIGSTOP)  # never the caller itself
except ProcessLookupError:
    pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
