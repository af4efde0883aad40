"""ex2 mistake: kᵀ is made with as_strided, with the strides of a contiguous k: for a k that is a view (transposed, sliced, expanded) it reads the wrong numbers.
zh: kᵀ 是用 as_strided 按连续存放的 k 的步长做出来的：k 若是视图（转置、切片、广播），读到的就是别的数。
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

    例子 / Example::

        >>> q = torch.tensor([[[1.0, 0.0], [1.0, 1.0]]])  # B=1, T=2, hs=2
        >>> k = torch.tensor([[[3.0, 1.0], [0.0, 2.0]]])
        >>> attention_scores(q, k)
        tensor([[[3., 0.],
                 [4., 2.]]])
    """
    # BEGIN SOLUTION
    B, T, hs = k.shape
    kt = torch.as_strided(k, (B, hs, T), (T * hs, 1, hs))  # (B, hs, T)
    return q @ kt
    # END SOLUTION
