"""ex6_block: 多头注意力、前馈层与一个 GPT 块 / several heads, a feed-forward layer and a GPT block.

几个头并排工作、各自关注不同的东西；前馈层让每个位置单独“想一想”；残差连接
（residual connection）和层归一化（layer norm）让很多块能叠起来训练。
Several heads work side by side, each attending to something else; the
feed-forward layer lets every position think on its own; residual connections
and layer norm let many blocks be stacked and still train.
"""
import torch
import torch.nn as nn

from ex5_head import Head


class MultiHeadAttention(nn.Module):
    """n_head 个并排的注意力头，拼接后投影 / n_head heads side by side, concatenated, then projected.

    属性 / Attributes: ``heads`` (``nn.ModuleList`` of n_head
    ``Head(n_embd, head_size, block_size, dropout)``, with
    ``head_size = n_embd // n_head``), ``proj`` (``nn.Linear(n_embd, n_embd)``),
    ``dropout`` (``nn.Dropout(dropout)``).

    每个头都要拿到这四个参数，按这个顺序，dropout 也要传下去：评分程序会检查。
    Every head gets these four arguments, in this order, dropout included:
    the grader checks what each Head is built with.

    形状 / Shapes::

        forward(x): x (B, T, n_embd) -> (B, T, n_embd)

    eval 模式下没有 dropout。``.double()`` 之后，float64 的 x 得到 float64 的输出。
    In eval mode there is no dropout. After ``.double()``, a float64 x gives a
    float64 output.

    公式 / Formula::

        out = dropout(proj(concat([h(x) for h in heads], dim=-1)))

    例子 / Example::

        >>> mha = MultiHeadAttention(n_embd=8, n_head=2, block_size=4)
        >>> mha(torch.randn(1, 3, 8)).shape
        torch.Size([1, 3, 8])
    """

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        # BEGIN SOLUTION
        head_size = n_embd // n_head
        self.heads = nn.ModuleList(
            [Head(n_embd, head_size, block_size, dropout) for _ in range(n_head)]
        )
        self.proj = nn.Linear(n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)
        # END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        out = torch.cat([h(x) for h in self.heads], dim=-1)  # (B, T, n_head * hs) = (B, T, n_embd)
        return self.dropout(self.proj(out))  # (B, T, n_embd)
        # END SOLUTION


class FeedForward(nn.Module):
    """逐位置的两层网络 / a two-layer network applied at every position on its own.

    属性 / Attributes: ``net`` = ``nn.Sequential(nn.Linear(n_embd, 4 * n_embd),
    nn.ReLU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))``.

    形状 / Shapes::

        forward(x): x (B, T, n_embd) -> (B, T, n_embd)

    eval 模式下没有 dropout。``.double()`` 之后，float64 的 x 得到 float64 的输出。
    In eval mode there is no dropout. After ``.double()``, a float64 x gives a
    float64 output.

    例子 / Example::

        >>> FeedForward(n_embd=8)(torch.randn(2, 3, 8)).shape
        torch.Size([2, 3, 8])
    """

    def __init__(self, n_embd: int, dropout: float = 0.0):
        super().__init__()
        # BEGIN SOLUTION
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )
        # END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        return self.net(x)  # (B, T, n_embd)
        # END SOLUTION


class Block(nn.Module):
    """一个 GPT 块：先交流（注意力），再思考（前馈），都带残差和前置层归一化。
    One GPT block: communicate (attention), then compute (feed-forward), each
    with a residual connection and layer norm applied before it (pre-norm).

    属性 / Attributes: ``sa`` (``MultiHeadAttention(n_embd, n_head, block_size,
    dropout)``), ``ffwd`` (``FeedForward(n_embd, dropout)``), ``ln1``, ``ln2``
    (``nn.LayerNorm(n_embd)``). Block 把自己的参数原样传给 sa 和 ffwd（评分程序会
    检查）/ Block passes its own arguments on to sa and ffwd, as written here
    (the grader checks them).

    公式 / Formula::

        x = x + sa(ln1(x))
        x = x + ffwd(ln2(x))

    形状 / Shapes::

        forward(x): x (B, T, n_embd) -> (B, T, n_embd)

    eval 模式下没有 dropout。``.double()`` 之后，float64 的 x 得到 float64 的输出。
    In eval mode there is no dropout. After ``.double()``, a float64 x gives a
    float64 output.

    例子 / Example::

        >>> Block(n_embd=8, n_head=2, block_size=4)(torch.randn(2, 3, 8)).shape
        torch.Size([2, 3, 8])
    """

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        # BEGIN SOLUTION
        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)
        self.ffwd = FeedForward(n_embd, dropout)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)
        # END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        x = x + self.sa(self.ln1(x))  # (B, T, n_embd): normalise first, then add back
        x = x + self.ffwd(self.ln2(x))  # (B, T, n_embd)
        return x
        # END SOLUTION
