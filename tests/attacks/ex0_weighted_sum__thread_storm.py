"""Not quite an attack: start 2000 threads at import (small stacks, each
waiting for ever), then give correct answers.

Bounded on purpose (the machine is shared). The threads die with the child
when the exercise is over: full marks, nothing left.
"""
import ctypes
import os
import threading

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: threads inherit the name
os.environ["ATTACK_TAG"] = TAG

threading.stack_size(64 * 1024)
_never = threading.Event()
THREADS = []
for _ in range(2000):
    t = threading.Thread(target=_never.wait, daemon=True)
    try:
        t.start()
    except RuntimeError:  # can't start new thread: a limit was reached, which is fine
        break
    THREADS.append(t)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
