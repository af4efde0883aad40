"""Attack: return +inf and -inf, in the right shape and dtype, hoping that a
relative tolerance makes infinity close to anything. 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = torch.full(values.shape[:-2] + values.shape[-1:], float("inf"), dtype=values.dtype)
    out[..., ::2] = float("-inf")
    return out
