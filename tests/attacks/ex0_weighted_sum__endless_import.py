"""Attack (or accident): an endless busy loop at the top level. The import
limit (20 s) stops it once; the exercise scores 0 without trying again."""
import torch

while True:
    pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
