"""ex3_scaling: 按 head_size 的平方根缩放 / scaling by the square root of head_size.

两个长度为 hs、元素方差为 1 的随机向量，点积的方差约为 hs。分数太大时 softmax 会
几乎把全部权重给一个位置；乘以 hs ** -0.5 把方差拉回 1 左右。
The dot product of two random length-hs vectors with unit-variance entries has
variance about hs. Large scores make softmax put almost all weight on one
position; multiplying by hs ** -0.5 brings the variance back to about 1.
"""
import torch


def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
    """返回 scores * head_size ** -0.5，不改动输入。
    Return ``scores * head_size ** -0.5``, leaving the input unchanged.

    形状 / Shapes: 任意，输出与输入同形 / any; the output has the input's shape.

    返回值的 dtype 与 scores 相同：float64 进，float64 出。
    The result has the dtype of scores: float64 in, float64 out.

    梯度能穿过它传回 scores（不要 detach）。
    Gradients flow through it back to scores (no detach).

    例子 / Example::

        >>> scale_scores(torch.tensor([[8.0, -4.0]]), head_size=16)
        tensor([[ 2., -1.]])
    """
    # BEGIN SOLUTION
    return scores * head_size**-0.5  # a new tensor: the caller's scores stay as they were
    # END SOLUTION
