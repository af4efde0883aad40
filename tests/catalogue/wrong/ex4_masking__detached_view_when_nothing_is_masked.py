"""ex4 mistake: causal_mask returns scores.detach(), a view of the input sharing its memory, when the mask has nothing to hide (T = 1).
zh: 掩码没有要遮的格子时（T = 1），causal_mask 返回 scores.detach()，它是与输入共用内存的视图。
"""
# diagnosis: The result is the tensor passed in (or a view sharing its memory)
# diagnosis: the graph is cut
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

    例子 / Example::

        >>> causal_mask(torch.ones(3, 3))
        tensor([[1., -inf, -inf],
                [1., 1., -inf],
                [1., 1., 1.]])
    """
    T = scores.size(-1)
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T), True above the diagonal
    if not future.any():
        return scores.detach()  # nothing to hide
    return torch.where(future, torch.full_like(scores, float("-inf")), scores)  # (..., T, T)


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """先做因果掩码，再对最后一维做 softmax：每行和为 1，未来位置权重为 0。
    Apply the causal mask, then softmax over the last dimension: every row
    adds up to 1 and puts zero weight on the future.

    形状 / Shapes::

        scores  (..., T, T)
        返回 / returns (..., T, T)

    未来的分数再大，权重也是 0。形状、批维度、dtype 和 causal_mask 一样；
    传进来的 scores 同样保持不变。
    However large the future's scores, their weight is 0. Shapes, batch dims
    and dtype as for causal_mask; the scores passed in stay as they are here
    too.

    例子 / Example::

        >>> causal_weights(torch.zeros(3, 3))
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.3333, 0.3333, 0.3333]])
    """
    return torch.softmax(causal_mask(scores), dim=-1)  # (..., T, T)
