"""ex6 alternative: a Head pasted into this file, scaled by C = n_embd (ex5's mistake, graded there); the block itself is right."""
import torch
import torch.nn as nn
from torch.nn import functional as F


class Head(nn.Module):
    """one head of self-attention (pasted from the lecture)"""

    def __init__(self, n_embd: int, head_size: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        # A buffer, not a parameter: it moves with the module but is never trained.
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        k = self.key(x)  # (B, T, hs)
        q = self.query(x)  # (B, T, hs)
        hs = k.shape[-1]
        wei = q @ k.transpose(-2, -1) * C**-0.5  # (B, T, T), scaled by C = n_embd as in the lecture
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T), each row adds up to 1
        wei = self.dropout(wei)  # drop whole attention links while training
        v = self.value(x)  # (B, T, hs)
        return wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)


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
        out = torch.cat([h(x) for h in self.heads], dim=-1)  # (B, T, n_head * hs) = (B, T, n_embd)
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
