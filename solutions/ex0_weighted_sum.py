"""ex0_weighted_sum: 按分数加权求和 / a weighted sum driven by scores.

注意力的骨架是一次加权求和：先把分数变成和为 1 的权重，再按权重把各位置的
信息加起来。
Attention is, at its core, a weighted sum: turn scores into weights that add
up to 1, then add the positions' values with those weights.
"""
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

    梯度能穿过它传回 scores 和 values（不要 detach）。
    Gradients flow through it back to scores and values (no detach).

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
    # BEGIN SOLUTION
    weights = torch.softmax(scores, dim=-1)  # (..., T), each row adds up to 1
    # (..., 1, T) @ (..., T, C) -> (..., 1, C): one weighted sum per row of scores.
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    # END SOLUTION
