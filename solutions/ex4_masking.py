"""ex4_masking: 因果掩码 / the causal mask.

预测下一个字时，位置 i 只能参考位置 0..i。把分数表对角线以上（j > i）的格子设为
负无穷（-inf），softmax 之后它们的权重恰好为 0。
When predicting the next character, position i may only use positions 0..i.
Setting every score above the diagonal (j > i) to -inf makes its weight
exactly 0 after softmax.
"""
import torch


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """把对角线以上（j > i）的分数换成 -inf，其余不变，返回新张量。
    Replace every score above the diagonal (j > i) by -inf and keep the rest;
    return a new tensor.

    形状 / Shapes::

        scores  (..., T, T)
        返回 / returns (..., T, T)

    ``...`` 是任意多个批维度，也可以没有；T 可以是任意长度，1 也行，比 8 长也行。
    传进来的 scores 保持不变。返回值的 dtype 与 scores 相同：float64 进，float64 出。
    ``...`` stands for any number of batch dims, none included; T may be any
    length, 1 or longer than 8. The scores passed in stay as they are. The
    result has the dtype of scores: float64 in, float64 out.

    梯度能穿过它传回 scores（不要 detach）。
    Gradients flow through it back to scores (no detach).

    例子 / Example::

        >>> causal_mask(torch.ones(3, 3))
        tensor([[1., -inf, -inf],
                [1., 1., -inf],
                [1., 1., 1.]])
    """
    # BEGIN SOLUTION
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=scores.device))  # (T, T)
    return scores.masked_fill(~tril, float("-inf"))  # (..., T, T), not in place
    # END SOLUTION


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """先做因果掩码，再对最后一维做 softmax：每行和为 1，未来位置权重为 0。
    Apply the causal mask, then softmax over the last dimension: every row
    adds up to 1 and puts zero weight on the future.

    形状 / Shapes::

        scores  (..., T, T)
        返回 / returns (..., T, T)

    未来的分数再大，权重也是 0。形状、批维度、dtype 和 causal_mask 一样；
    传进来的 scores 同样保持不变。梯度也像 causal_mask 那样传回 scores。
    However large the future's scores, their weight is 0. Shapes, batch dims
    and dtype as for causal_mask; the scores passed in stay as they are here
    too. Gradients flow through it back to scores, as through causal_mask.

    例子 / Example::

        >>> causal_weights(torch.zeros(3, 3))
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    # BEGIN SOLUTION
    return torch.softmax(causal_mask(scores), dim=-1)  # (..., T, T)
    # END SOLUTION
