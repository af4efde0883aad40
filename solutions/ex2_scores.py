"""ex2_scores: 查询与键的点积 / dot products of queries and keys.

每个位置用查询（query）表达“我想找什么”，用键（key）表达“我能提供什么”；
两者的点积（dot product）越大，越匹配。
Each position asks with its query and offers with its key; the larger their
dot product, the better the match.
"""
import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """每个查询与每个键的点积：结果 [b, i, j] = q[b, i] · k[b, j]。
    Every query against every key: entry [b, i, j] = q[b, i] . k[b, j].

    形状 / Shapes (hs: head_size, 查询和键的长度 / length of queries and keys)::

        q       (B, T, hs)
        k       (B, T, hs)
        返回 / returns (B, T, T)

    B、T、hs 可以是任意正整数，1 也行。返回值的 dtype 与 q、k 相同：float64 进，float64 出。
    B, T and hs may be any sizes, 1 included. The result has the dtype of q and
    k: float64 in, float64 out.

    梯度能穿过它传回 q 和 k（不要 detach）。
    Gradients flow through it back to q and k (no detach).

    例子 / Example::

        >>> q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # B=1, T=2, hs=2
        >>> k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
        >>> attention_scores(q, k)
        tensor([[[3., 0.],
                 [4., 2.]]])
    """
    # BEGIN SOLUTION
    return q @ k.transpose(-2, -1)  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
    # END SOLUTION
