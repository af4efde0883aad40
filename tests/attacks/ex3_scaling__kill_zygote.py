"""Attack: kill the zygote (the process this child was forked from), with a
daemon started before and one after, then give correct answers. On ex3, a
middle exercise: the exercises after it need the new zygote.

This is not the grading process: the grader notices the zygote is gone and
starts a new one for the next exercise. The child itself and the daemons are
re-parented to the grading process (a subreaper), which must kill them. Full
marks on this exercise (its answers are right), full marks on the others, no
process left.

In the sandbox the zygote is the PID namespace's process 1, which no process
inside can kill: the kill does nothing, full marks all the same.
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _daemon() -> None:
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(1000)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


_daemon()
try:
    os.kill(os.getppid(), signal.SIGKILL)
except PermissionError:  # a root grader's children run as a user of their own: refused, and the rest of the file is an honest answer
    pass
_daemon()


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    return scores * head_size**-0.5  # a new tensor: the caller's scores stay as they were
