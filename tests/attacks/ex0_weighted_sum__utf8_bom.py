"""Not an attack: a correct solution saved as UTF-8 with a byte-order mark
(as some Windows editors do). It must score full marks."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
