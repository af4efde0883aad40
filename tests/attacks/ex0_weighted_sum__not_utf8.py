"""Accident: a correct solution saved as Latin-1 (café) with no coding line:
Python itself cannot read it. Refused, 0 points, and the feedback says UTF-8."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
