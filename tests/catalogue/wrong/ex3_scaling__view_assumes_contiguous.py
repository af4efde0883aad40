"""ex3 mistake: the scores are flattened with .view(-1) and shaped back: a transposed, sliced or expanded view of scores (a legal input) cannot be viewed, and it raises.
zh: 用 .view(-1) 把 scores 拉平再变回原形：scores 若是转置、切片或广播出来的视图（这也是合法输入），就不能 view，直接报错。
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
    return (scores.view(-1) * head_size**-0.5).view(scores.shape)
    # END SOLUTION
