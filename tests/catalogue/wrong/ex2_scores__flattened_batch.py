"""ex2 mistake: the batch is flattened into one (B*T, hs) matrix, which mixes samples (and only works for B = 1).
zh: 把整批压成一个 (B*T, hs) 的矩阵再乘，不同样本混在了一起（只有 B = 1 时才对）。
"""
# marked: release-set-2
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
    B, T, hs = q.shape
    scores = q.reshape(B * T, hs) @ k.reshape(B * T, hs).T  # (B*T, B*T)
    return scores.reshape(B, T, T)
