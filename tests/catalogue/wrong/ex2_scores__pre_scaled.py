"""ex2 mistake: the scores are already scaled by the square root of head_size (that is ex3).
zh: 分数已经除以了 head_size 的平方根（那是 ex3 的事）。
"""
# diagnosis: You already scaled by √head_size
import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """每个查询与每个键的点积：结果 [b, i, j] = q[b, i] · k[b, j]。
    Every query against every key: entry [b, i, j] = q[b, i] . k[b, j].

    形状 / Shapes (hs: head_size, 查询和键的长度 / length of queries and keys)::

        q       (B, T, hs)
        k       (B, T, hs)
        返回 / returns (B, T, T)

    例子 / Example::

        >>> q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # B=1, T=2, hs=2
        >>> k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
        >>> attention_scores(q, k)
        tensor([[[3., 0.],
                 [4., 2.]]])
    """
    return q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5  # scaled a step too early
