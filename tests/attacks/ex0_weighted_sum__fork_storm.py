"""Attack: a bounded fork storm at import (50 children, each in a session of
its own, ignoring SIGTERM, sleeping), then correct answers.

Bounded on purpose: the grader runs as root here, where RLIMIT_NPROC does not
hold. Full marks, and none of the 50 may be left.
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

for _ in range(50):
    if os.fork() == 0:
        try:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(1000)
        finally:
            os._exit(0)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
