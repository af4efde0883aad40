"""Attack: SIGKILL the process group at every call (kill(0, SIGKILL)).

The child runs in a session and process group of its own, so this kills the
child and nothing else, in either mode: every check ends with "the process
ended unexpectedly", 0 points, the other exercises lose nothing.
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    os.kill(0, signal.SIGKILL)
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
