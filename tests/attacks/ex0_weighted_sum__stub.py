"""Not an attack: the untouched stub. Every check says "not implemented"."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    # TODO(ex0_weighted_sum): 在这里写你的代码 / write your code here
    raise NotImplementedError("ex0_weighted_sum: weighted_sum 尚未完成 / not implemented yet")
