"""ex3 mistake: scales by scores.shape[-1] (T) instead of the head_size argument.
zh: 用 scores.shape[-1]（也就是 T）缩放，而不是传进来的 head_size。
"""
# marked: release-set-1
# diagnosis: You scaled by T (scores.shape[-1])
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    return scores * scores.shape[-1] ** -0.5
