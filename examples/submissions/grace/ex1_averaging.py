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

    例子 / Example::

        >>> averaging_matrix(3)
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    lower = torch.ones(T, T).tril()
    # row i has i+1 ones, so dividing by i+1 makes every row an average
    counts = torch.arange(1, T + 1, dtype=lower.dtype).unsqueeze(1)
    return lower / counts


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
    n_steps = x.size(-2)
    avg = averaging_matrix(n_steps).to(dtype=x.dtype, device=x.device)
    return torch.matmul(avg, x)
