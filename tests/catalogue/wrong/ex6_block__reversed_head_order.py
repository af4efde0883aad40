"""ex6 mistake: the heads are concatenated in reverse order.
zh: 各个头按相反的顺序拼接。
"""
# diagnosis: The heads are concatenated in reverse
import torch
import torch.nn as nn

from ex5_head import Head


class MultiHeadAttention(nn.Module):
    """n_head 个并排的注意力头，拼接后投影 / n_head heads side by side, concatenated, then projected.

    属性 / Attributes: ``heads`` (``nn.ModuleList`` of n_head
    ``Head(n_embd, n_embd // n_head, block_size, dropout)``), ``proj``
    (``nn.Linear(n_embd, n_embd)``), ``dropout`` (``nn.Dropout(dropout)``).

    形状 / Shapes::

        forward(x): x (B, T, n_embd) -> (B, T, n_embd)

    公式 / Formula::

        out = dropout(proj(concat([h(x) for h in heads], dim=-1)))

    例子 / Example::

        >>> mha = MultiHeadAttention(n_embd=8, n_head=2, block_size=4)
        >>> mha(torch.randn(1, 3, 8)).shape
        torch.Size([1, 3, 8])
    """

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        head_size = n_embd // n_head
        self.heads = nn.ModuleList(
            [Head(n_embd, head_size, block_size, dropout) for _ in range(n_head)]
        )
        self.proj = nn.Linear(n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.cat([h(x) for h in reversed(self.heads)], dim=-1)
        return self.dropout(self.proj(out))  # (B, T, n_embd)


class FeedForward(nn.Module):
    """逐位置的两层网络 / a two-layer network applied at every position on its own.

    属性 / Attributes: ``net`` = ``nn.Sequential(nn.Linear(n_embd, 4 * n_embd),
    nn.ReLU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))``.

    形状 / Shapes::

        forward(x): x (B, T, n_embd) -> (B, T, n_embd)

    例子 / Example::

        >>> FeedForward(n_embd=8)(torch.randn(2, 3, 8)).shape
        torch.Size([2, 3, 8])
    """

    def __init__(self, n_embd: int, dropout: float = 0.0):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)  # (B, T, n_embd)


class Block(nn.Module):
    """一个 GPT 块：先交流（注意力），再思考（前馈），都带残差和前置层归一化。
    One GPT block: communicate (attention), then compute (feed-forward), each
    with a residual connection and layer norm applied before it (pre-norm).

    属性 / Attributes: ``sa`` (``MultiHeadAttention``), ``ffwd``
    (``FeedForward``), ``ln1``, ``ln2`` (``nn.LayerNorm(n_embd)``).

    公式 / Formula::

        x = x + sa(ln1(x))
        x = x + ffwd(ln2(x))

    例子 / Example::

        >>> Block(n_embd=8, n_head=2, block_size=4)(torch.randn(2, 3, 8)).shape
        torch.Size([2, 3, 8])
    """

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)
        self.ffwd = FeedForward(n_embd, dropout)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.sa(self.ln1(x))  # (B, T, n_embd): normalise first, then add back
        x = x + self.ffwd(self.ln2(x))  # (B, T, n_embd)
        return x
