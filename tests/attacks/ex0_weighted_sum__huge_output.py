"""Not quite an attack: a correct solution that prints 200 MB to stdout and
200 MB to stderr at import (and a little at each call).

The grader keeps the first 16 KB and drains the rest, so the child never
blocks on a full pipe and the grader's memory stays small: full marks.
"""
import os
import sys

import torch

_BLOCK = b"spam " * (1 << 18) + b"\n"  # about 1.3 MB
for _ in range(160):
    os.write(1, _BLOCK)
    os.write(2, _BLOCK)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    print("computing", tuple(scores.shape), file=sys.stderr)
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
