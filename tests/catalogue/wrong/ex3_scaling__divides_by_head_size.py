"""ex3 mistake: divides by head_size instead of by its square root.
zh: 除以 head_size 本身，而不是它的平方根。
"""
# marked: representative
# diagnosis: You divided by head_size itself
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    return scores / head_size
