"""ex2 mistake: k @ q^T instead of q @ k^T, so the result is transposed.
zh: 算成了 k @ q^T，而不是 q @ k^T，结果是转置的。
"""
# marked: representative, release-set-1, cross-student
# diagnosis: Your result is transposed
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
    return k @ q.transpose(-2, -1)  # (B, T, T)
