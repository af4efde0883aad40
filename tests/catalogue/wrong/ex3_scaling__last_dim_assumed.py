"""ex3 mistake: the scores are reshaped to (-1, scores.shape[-1]): a 0-d tensor, a shape the stub allows, has no last dim, and it raises.
zh: 把 scores 变形成 (-1, scores.shape[-1])：0 维的张量（stub 允许任意形状）没有最后一维，直接报错。
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
    return (scores.reshape(-1, scores.shape[-1]) * head_size**-0.5).reshape(scores.shape)
    # END SOLUTION
