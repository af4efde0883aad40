"""Attack: return NaN everywhere, in the right shape and dtype, hoping that a
comparison with NaN comes out true. 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.full(values.shape[:-2] + values.shape[-1:], float("nan"), dtype=values.dtype)
