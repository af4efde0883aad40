"""Attack (or accident): ignore SIGTERM and SIGINT, then loop forever at the
top level.

The import limit (20 s) stops it once, with SIGKILL, which cannot be ignored:
the exercise scores 0 ("importing the file took over 20 s") without trying
again, and no process is left. The exercises after it must not pay for the
time it wasted: ex5_head's child is started ahead, while ex4's checks wait out
this import, and its own import deadline must not run out meanwhile (graded
in full: FULL_RUNS in test_attacks.py).
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: /proc/PID/comm
os.environ["ATTACK_TAG"] = TAG

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)

while True:  # sleeps rather than spins: this machine is shared
    time.sleep(0.05)


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=scores.device))  # (T, T)
    return scores.masked_fill(~tril, float("-inf"))  # (..., T, T), not in place


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(causal_mask(scores), dim=-1)  # (..., T, T)
