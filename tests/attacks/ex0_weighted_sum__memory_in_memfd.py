"""Attack: the same as memory_in_forks written another way: one process
holds 3 GiB in anonymous files (memfd_create), written, never mapped, in
files under the 16 MB file-size limit: the per-process address-space limit
(RLIMIT_AS) counts none of it. The answers are right only if all of it was
held.

Where the grader can make a control group (as root), the pages count
against the submission's memory limit: the kernel kills the child at
import, 0 points (the old grader gave full marks). Elsewhere it earns full
marks (test_attacks.py: EXPECTED_POINTS).
"""
import os

import torch

CHUNK = b"\1" * (15 << 20)  # under the 16 MB file-size limit
files = []
held = 0
while held < 3 << 30:
    try:
        fd = os.memfd_create("hoard")
        os.write(fd, CHUNK)
    except OSError:
        break
    files.append(fd)
    held += len(CHUNK)
HELD = held


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out if HELD >= 3 << 30 else torch.zeros_like(out)
