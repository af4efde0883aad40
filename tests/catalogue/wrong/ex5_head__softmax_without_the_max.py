"""ex5 mistake: the softmax written by hand as exp(wei) / sum(exp(wei)), without subtracting the row's max: a score of 89 overflows in float32 and the head returns NaN.
zh: 手写 softmax，写成 exp(wei) / sum(exp(wei))，没有先减去每行的最大值：分数到了 89，float32 就溢出，头的输出变成 NaN。
"""
import torch
import torch.nn as nn
from torch.nn import functional as F


class Head(nn.Module):
    """一个因果自注意力头 / one head of causal self-attention.

    参数 / Arguments:
        n_embd: 每个字向量的长度 / length of each input vector (C)
        head_size: 查询、键、值的长度 / length of queries, keys and values (hs)
        block_size: 最长的上下文 / the longest context T this head accepts
        dropout: 注意力权重上的 dropout 比例 / dropout rate on the weights

    属性 / Attributes: ``key``, ``query``, ``value`` =
    ``nn.Linear(n_embd, head_size, bias=False)``.

    形状 / Shapes::

        forward(x): x (B, T, n_embd), T <= block_size -> (B, T, head_size)

    公式 / Formula::

        wei = softmax(causal_mask(q @ k^T * head_size ** -0.5))   # (B, T, T)
        out = dropout(wei) @ v                                      # (B, T, hs)

    例子 / Example::

        >>> head = Head(n_embd=4, head_size=2, block_size=8)
        >>> head(torch.randn(3, 5, 4)).shape
        torch.Size([3, 5, 2])
    """

    def __init__(self, n_embd: int, head_size: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        k = self.key(x)  # (B, T, hs)
        q = self.query(x)  # (B, T, hs)
        hs = k.shape[-1]
        wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
        wei = torch.exp(wei)  # exp(-inf) = 0 above the diagonal
        wei = wei / wei.sum(dim=-1, keepdim=True)  # (B, T, T)
        wei = self.dropout(wei)  # drop whole attention links while training
        v = self.value(x)  # (B, T, hs)
        return wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
