"""Attack (or accident): importing a module that does not exist. 0 points,
and the feedback names the error."""
import torch

import attention_helpers_nobody_installed  # noqa: F401


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
