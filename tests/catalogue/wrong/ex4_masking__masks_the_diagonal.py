"""ex4 mistake: the diagonal is masked too (tril with diagonal=-1), so position 0 sees nothing and gets NaN.
zh: 对角线也被遮住了（tril 用了 diagonal=-1），位置 0 什么也看不见，得到 NaN。
"""
# diagnosis: never mask the diagonal
import torch


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """把对角线以上（j > i）的分数换成 -inf，其余不变，返回新张量。
    Replace every score above the diagonal (j > i) by -inf and keep the rest;
    return a new tensor.

    形状 / Shapes::

        scores  (..., T, T)
        返回 / returns (..., T, T)

    例子 / Example::

        >>> causal_mask(torch.ones(3, 3))
        tensor([[1., -inf, -inf],
                [1., 1., -inf],
                [1., 1., 1.]])
    """
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=-1)  # (T, T)
    return scores.masked_fill(~tril, float("-inf"))  # (..., T, T), not in place


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """先做因果掩码，再对最后一维做 softmax：每行和为 1，未来位置权重为 0。
    Apply the causal mask, then softmax over the last dimension: every row
    adds up to 1 and puts zero weight on the future.

    形状 / Shapes::

        scores  (..., T, T)
        返回 / returns (..., T, T)

    例子 / Example::

        >>> causal_weights(torch.zeros(3, 3))
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    return torch.softmax(causal_mask(scores), dim=-1)  # (..., T, T)
