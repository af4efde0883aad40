"""ex1_averaging: 用一次矩阵乘法对前文取平均 / averaging the past with one matrix product.

让每个位置看见前文的最简单办法，是取它自己和之前所有位置的平均。一个每行归一化的
下三角矩阵（lower-triangular matrix）一次乘法就能做到。
The simplest way to let each position see its past is to average itself with
every earlier position. One product with a row-normalised lower-triangular
matrix does it for all positions at once.
"""
import torch


def averaging_matrix(T: int) -> torch.Tensor:
    """返回 (T, T) 的浮点矩阵：第 i 行的第 0..i 列都是 1/(i+1)，其余为 0。
    Return a (T, T) float matrix whose row i holds 1/(i+1) in columns 0..i and
    0 after them.

    任何浮点类型都可以（float32 或 float64）；T 可以是 1。
    Any float dtype will do (float32 or float64); T may be 1.

    例子 / Example::

        >>> averaging_matrix(3)
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    # BEGIN SOLUTION
    tril = torch.tril(torch.ones(T, T))  # (T, T), row i has ones in columns 0..i
    return tril / tril.sum(dim=1, keepdim=True)  # (T, T), each row now adds up to 1
    # END SOLUTION


def average_past(x: torch.Tensor) -> torch.Tensor:
    """位置 t 的输出是位置 0..t 的平均，用 averaging_matrix 一次算出。
    Position t of the output is the mean of positions 0..t of ``x``, computed
    with one product by ``averaging_matrix``.

    形状 / Shapes (B: 批大小 / batch, T: 位置数 / time, C: 通道 / channels)::

        x       (B, T, C)
        返回 / returns (B, T, C)

    T 可以是任意正整数，1 也行。返回值的 dtype 与 x 相同：float64 进，float64 出
    （矩阵要换成 x 的 dtype 再乘）。
    T may be any size, 1 included. The result has x's dtype: float64 in,
    float64 out (bring the matrix to x's dtype before the product).

    梯度能穿过它传回 x（不要 detach）。
    Gradients flow through it back to x (no detach).

    例子 / Example::

        >>> x = torch.tensor([[[2.0], [4.0], [9.0]]])  # B=1, T=3, C=1
        >>> average_past(x).flatten()
        tensor([2., 3., 5.])
    """
    # BEGIN SOLUTION
    T = x.shape[-2]
    wei = averaging_matrix(T).to(x.dtype)  # (T, T)
    return wei @ x  # (T, T) @ (B, T, C) -> (B, T, C)
    # END SOLUTION
