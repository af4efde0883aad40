"""Attack: classic daemons (fork, setsid, fork again, the middle process
exits) that ignore SIGTERM and sleep, started at import and at every call;
the answers are correct. On ex3, a middle exercise: the exercises after it
show that the daemons cost them nothing.

The daemons are orphans in sessions of their own, so killing the child's
process group misses them: the zygote, a subreaper, inherits them and must
kill them. Full marks, no process left.
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def _daemon(detach: bool) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                if detach:  # let go of the grader's pipes, as a real daemon does
                    devnull = os.open(os.devnull, os.O_RDWR)
                    for fd in range(5):
                        os.dup2(devnull, fd)
                time.sleep(1000)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


_daemon(detach=True)


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    _daemon(detach=False)
    return scores * head_size**-0.5  # a new tensor: the caller's scores stay as they were
