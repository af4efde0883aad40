"""ex1 mistake: the matrix multiplies x from the right (over time), which averages the future instead of the past.
zh: 矩阵放在 x 的右边去乘（沿时间维），平均的是未来，而不是过去。
"""
# diagnosis: You averaged the future (positions t..T-1)
import torch


def averaging_matrix(T: int) -> torch.Tensor:
    """返回 (T, T) 的浮点矩阵：第 i 行的第 0..i 列都是 1/(i+1)，其余为 0。
    Return a (T, T) float matrix whose row i holds 1/(i+1) in columns 0..i and
    0 after them.

    例子 / Example::

        >>> averaging_matrix(3)
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    tril = torch.tril(torch.ones(T, T))  # (T, T), row i has ones in columns 0..i
    return tril / tril.sum(dim=1, keepdim=True)  # (T, T), each row now adds up to 1


def average_past(x: torch.Tensor) -> torch.Tensor:
    """位置 t 的输出是位置 0..t 的平均，用 averaging_matrix 一次算出。
    Position t of the output is the mean of positions 0..t of ``x``, computed
    with one product by ``averaging_matrix``.

    形状 / Shapes (B: 批大小 / batch, T: 位置数 / time, C: 通道 / channels)::

        x       (B, T, C)
        返回 / returns (B, T, C)

    例子 / Example::

        >>> x = torch.tensor([[[2.0], [4.0], [9.0]]])  # B=1, T=3, C=1
        >>> average_past(x).flatten()
        tensor([2., 3., 5.])
    """
    T = x.shape[-2]
    wei = averaging_matrix(T).to(x.dtype)  # (T, T)
    return (x.transpose(-2, -1) @ wei).transpose(-2, -1)  # (B, C, T) @ (T, T) -> back to (B, T, C)
