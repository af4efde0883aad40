"""Attack: a correct function, then ``sys.exit(0)`` at import.

An exit with status 0 is not a successful import: the grader reports the
SystemExit and the exercise scores 0.
"""
import sys

import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)


sys.exit(0)
