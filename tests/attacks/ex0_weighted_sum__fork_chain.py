"""Attack: a process that keeps changing its pid (fork, the parent exits, the
child goes on) in a session of its own, so a kill aimed at a pid it was seen
with misses; then correct answers.

Each hop is orphaned to the zygote, which kills its children round after round
until none is left. Full marks, nothing left. The chain stops by itself after
60 s in case the grader fails, so a failing test does not leave it running.
"""
import ctypes
import os
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

if os.fork() == 0:
    try:
        os.setsid()
        start = time.monotonic()
        while time.monotonic() - start < 60:
            if os.fork():
                os._exit(0)  # the parent leaves, the child carries on under a new pid
            time.sleep(0.001)
    finally:
        os._exit(0)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
