"""ex5_head: 一个完整的注意力头 / one full attention head.

把前面几步连起来：线性层算出查询、键、值，点积打分，按 head_size 缩放，
因果掩码，softmax，dropout，最后对值加权求和。
Everything so far in one module: linear layers give queries, keys and values;
dot products give scores; scale by head_size; causal mask; softmax; dropout;
then a weighted sum of the values.
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

    同一个头要能先后处理不同长度的 T（不超过 block_size）。
    One head must handle inputs of any T up to block_size, one after another.

    head_size 可以比 n_embd 大。eval 模式（``head.eval()``）下没有 dropout。梯度要传回
    输入 x。``head.double()`` 之后，float64 的 x 得到 float64 的输出。
    head_size may be larger than n_embd. In eval mode (``head.eval()``) there
    is no dropout. The gradient flows back to the input x. After
    ``head.double()``, a float64 x gives a float64 output.

    未来位置的权重恰好是 0，分数再小（比如 -1e12）也一样：像 causal_mask 那样用 -inf 遮。
    The future's weight is exactly 0, however negative the scores are (say
    -1e12): mask with -inf, as causal_mask does.

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
        # BEGIN SOLUTION
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        # A buffer, not a parameter: it moves with the module but is never trained.
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)
        # END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        B, T, C = x.shape
        k = self.key(x)  # (B, T, hs)
        q = self.query(x)  # (B, T, hs)
        hs = k.shape[-1]
        # Scale by head_size, not by n_embd: the scores are dot products of length hs.
        wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T), each row adds up to 1
        wei = self.dropout(wei)  # drop whole attention links while training
        v = self.value(x)  # (B, T, hs)
        return wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        # END SOLUTION
