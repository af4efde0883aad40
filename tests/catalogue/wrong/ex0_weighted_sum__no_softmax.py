"""ex0 mistake: the raw scores are used as weights, with no softmax.
zh: 直接拿原始分数当权重，没有做 softmax。
"""
# marked: release-set-2
# diagnosis: softmax is missing
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """对最后一维做 softmax，再用这些权重对 values 的各行加权求和。
    Softmax over the last dimension of ``scores``, then the weighted sum of
    the rows of ``values``.

    形状 / Shapes (T: 位置数 / positions, C: 每个位置的信息维数 / channels)::

        scores  (..., T)
        values  (..., T, C)
        返回 / returns (..., C)

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
    weights = scores  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
