"""ex4_masking: 因果掩码 / the causal mask.

预测下一个字时，位置 i 只能参考位置 0..i。把分数表对角线以上（j > i）的格子设为
负无穷（-inf），softmax 之后它们的权重恰好为 0。
When predicting the next character, position i may only use positions 0..i.
Setting every score above the diagonal (j > i) to -inf makes its weight
exactly 0 after softmax.
"""
import torch


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
    # mask first, then normalise each row
    s = causal_mask(scores)
    return s.softmax(dim=-1)


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
    size = scores.size(-1)
    upper = torch.ones(size, size, dtype=torch.bool,
                       device=scores.device).triu(diagonal=1)   # future positions
    return scores.masked_fill_(upper, float('-inf'))
