"""Attack: fork 150 sleeping processes at import, more than the 64 a
submission may start, and answer right only if all of them were alive at
once.

Where the grader is root, RLIMIT_NPROC does not hold for its user: the
old grader let all 150 run (full marks). Now the children's own user has
the limit (without namespaces) and the submission's control group a process
limit (pids.max): forks beyond it fail, 0 points. A grader of another user
gives its children RLIMIT_NPROC too.
"""
import ctypes
import os
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

started = 0
for _ in range(150):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        try:
            time.sleep(60)
        finally:
            os._exit(0)
    started += 1
STARTED = started


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out if STARTED == 150 else torch.zeros_like(out)
