"""ex3 mistake: casts the scores to float32, so float64 scores come back as float32.
zh: 把分数转成了 float32，float64 的分数回来成了 float32。
"""
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    return scores.float() * head_size**-0.5
