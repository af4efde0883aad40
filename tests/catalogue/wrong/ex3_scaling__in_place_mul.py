"""ex3 mistake: scales in place with scores.mul_, changing the caller's tensor.
zh: 用 scores.mul_ 原地缩放，改动了调用者传进来的张量。
"""
# diagnosis: The tensor passed in was changed
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    return scores.mul_(head_size**-0.5)
