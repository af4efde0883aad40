"""Attack: three forks at import each touch 1 GiB and hold it, and the
answers are right only if all three held theirs at once: 3 GiB under a
2 GiB limit, which a per-process limit (RLIMIT_AS) cannot see.

Where the grader can make a control group (as root), the memory of all of a
submission's processes counts against one limit: one of the forks is killed
by the kernel, the answers are wrong, 0 points (the old grader gave full
marks). Elsewhere it earns full marks (test_attacks.py: EXPECTED_POINTS).
"""
import ctypes
import mmap
import os
import select
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

GIB = 1 << 30
r, w = os.pipe()
forks = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            block = mmap.mmap(-1, GIB)
            for i in range(0, GIB, mmap.PAGESIZE):
                block[i] = 1
            os.write(w, b"x")
            time.sleep(60)
        finally:
            os._exit(0)
    forks.append(pid)
os.close(w)
held, end = b"", time.monotonic() + 15
while len(held) < 3 and time.monotonic() < end:
    ready, _, _ = select.select([r], [], [], max(0.0, end - time.monotonic()))
    if not ready:
        break
    chunk = os.read(r, 3)
    if not chunk:
        break  # every fork is gone
    held += chunk
HELD_AT_ONCE = len(held)
for pid in forks:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out if HELD_AT_ONCE == 3 else torch.zeros_like(out)
