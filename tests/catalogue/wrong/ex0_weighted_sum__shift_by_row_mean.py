"""ex0 mistake: each row shifted by its mean before exp, not by its max: a row whose scores spread from 0 to 1000 still overflows.
zh: 每行在取 exp 之前减去的是平均值而不是最大值：分数从 0 到 1000 的一行仍然溢出。
"""
# diagnosis: what each row was shifted by is not its largest score
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
    centred = scores - scores.mean(dim=-1, keepdim=True)  # each row around 0: exp stays small
    e = centred.exp()
    weights = e / e.sum(dim=-1, keepdim=True)  # (..., T)
    return torch.einsum("...t,...tc->...c", weights, values)  # (..., C)
