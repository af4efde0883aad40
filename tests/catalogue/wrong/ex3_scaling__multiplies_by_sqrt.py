"""ex3 mistake: multiplies by sqrt(head_size) instead of dividing by it.
zh: 乘以 sqrt(head_size)，而不是除以它。
"""
# marked: release-set-2, cross-student
# diagnosis: You multiplied by the square root
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    return scores * head_size**0.5
