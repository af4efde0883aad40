"""Attack: return a plain float (the protocol lets numbers through). A check
that expects a tensor cannot pass with it: 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return 0.845
