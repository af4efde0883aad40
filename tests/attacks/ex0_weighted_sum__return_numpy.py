"""Attack: return the right values as a numpy array. Not a tensor: 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2).numpy()  # (..., C)
