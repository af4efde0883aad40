# -*- coding: latin-1 -*-
"""Accident: a correct solution saved as Latin-1 (café), with a coding line.
The grader reads UTF-8 only: refused, 0 points, and the feedback says UTF-8."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
