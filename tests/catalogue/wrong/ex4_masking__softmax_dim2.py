"""ex4 mistake: causal_weights takes softmax over dim=2, the last dim only for 3-D scores (2-D scores raise, 4-D ones go wrong).
zh: causal_weights 在 dim=2 上做 softmax：只有分数是三维时它才是最后一维（二维会报错，四维会算错）。
"""
# diagnosis: Softmax over the second-to-last dim
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
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=scores.device))  # (T, T)
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
    return torch.softmax(causal_mask(scores), dim=2)  # (..., T, T)
