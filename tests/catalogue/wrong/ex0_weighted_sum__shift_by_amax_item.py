"""ex0 mistake: exp(s - m) with m = torch.amax(scores).item(), one number for every row, normalised after the sum: a row far below the largest underflows.
zh: exp(s - m) 里 m = torch.amax(scores).item()，所有行共用一个数，求和后再归一化：远低于最大值的那一行下溢。
"""
# diagnosis: one number (the largest score of the whole batch) was subtracted from every row
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """对最后一维做 softmax，再用这些权重对 values 的各行加权求和。
    Softmax over the last dimension of ``scores``, then the weighted sum of
    the rows of ``values``.

    形状 / Shapes (T: 位置数 / positions, C: 每个位置的信息维数 / channels)::

        scores  (..., T)
        values  (..., T, C)
        返回 / returns (..., C)

    ``...`` 是任意多个批维度，也可以没有；T 可以是 1。
    ``...`` stands for any number of batch dims, none included; T may be 1.

    返回值的 dtype 与输入相同：float64 进，float64 出。
    The result has the inputs' dtype: float64 in, float64 out.

    分数可以很大（比如 1000），结果仍是有限的数。
    Scores may be large (say 1000): the result is still finite.

    公式 / Formula::

        w = softmax(scores)          # w_j = exp(s_j) / sum_k exp(s_k)
        out = sum_j w_j * values[j]

    例子 / Example::

        >>> scores = torch.tensor([2.0, 1.0, 0.0])
        >>> values = torch.tensor([[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
        >>> weighted_sum(scores, values).round(decimals=3)
        tensor([0.8450, 0.6700])
        >>> weighted_sum(torch.zeros(3), values).round(decimals=3)
        tensor([1.0000, 1.3330])
    """
    top = torch.amax(scores).item()  # keeps exp from overflowing
    e = (scores - top).exp()  # (..., T)
    return (e.unsqueeze(-1) * values).sum(dim=-2) / e.sum(dim=-1, keepdim=True)  # (..., C)
