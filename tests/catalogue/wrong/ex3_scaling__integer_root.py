"""ex3 mistake: the root is taken in integers (math.isqrt): right when head_size is a perfect square, wrong for 2, 3, 6, 12...
zh: 平方根是用整数算的（math.isqrt）：head_size 是完全平方数时对，2、3、6、12 就错了。
"""
import math

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
    return scores / math.isqrt(head_size)
    # END SOLUTION
