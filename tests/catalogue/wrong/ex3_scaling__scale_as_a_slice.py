"""ex3 mistake: the scale is a tensor shaped like scores[..., :1]: on a 0-d tensor, a shape the stub allows, the slice raises.
zh: 缩放因子做成了 scores[..., :1] 那样形状的张量：对 0 维的张量（stub 允许任意形状）切片直接报错。
"""
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    返回值的 dtype 与 scores 相同：float64 进，float64 出。
    The result has the dtype of scores: float64 in, float64 out.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    # BEGIN SOLUTION
    return scores * torch.full_like(scores[..., :1], head_size**-0.5)
    # END SOLUTION
