"""The untouched stub, graded after a grading that tried to break the
grader: it must be graded at all, as the stub it is (0 points)."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError("ex0_weighted_sum: weighted_sum 尚未完成 / not implemented yet")
