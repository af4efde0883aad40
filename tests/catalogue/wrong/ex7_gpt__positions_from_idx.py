"""ex7 mistake: the position embeddings are looked up with the token ids, position_embedding_table(idx).
zh: 位置嵌入是拿字的编号查的：position_embedding_table(idx)。
"""
# diagnosis: The position embeddings are looked up with the token ids idx
import torch
import torch.nn as nn
import torch.nn.functional as F

from ex6_block import Block


class GPT(nn.Module):
    """一个完整的小 GPT / a whole small GPT.

    属性 / Attributes: ``token_embedding_table`` (``nn.Embedding(vocab_size,
    n_embd)``), ``position_embedding_table`` (``nn.Embedding(block_size,
    n_embd)``), ``blocks`` (``nn.Sequential`` of n_layer ``Block(n_embd,
    n_head, block_size, dropout)``, imported from ex6_block),
    ``ln_f`` (``nn.LayerNorm(n_embd)``), ``lm_head`` (``nn.Linear(n_embd,
    vocab_size)``). 每个 Block 都按这个顺序拿到这四个参数，dropout 也要传下去：
    评分程序会检查。/ Every Block gets these four arguments, in this order,
    dropout included: the grader checks what each Block is built with.

    形状 / Shapes (B: batch, T: time; V: vocab_size)::

        forward(idx, targets=None): idx (B, T) long, T <= block_size -> (logits (B, T, V), loss)
            targets (B, T) long; loss: cross-entropy over every position, or None without targets
        generate(idx, max_new_tokens): idx (B, T) long, any T -> (B, T + max_new_tokens)

    公式 / Formula::

        x = token_embedding_table(idx) + position_embedding_table(arange(T))
        logits = lm_head(ln_f(blocks(x)))
        loss = cross_entropy(logits.view(B * T, V), targets.view(B * T))

    例子 / Example::

        >>> model = GPT(vocab_size=10, n_embd=8, n_head=2, n_layer=2, block_size=4)
        >>> logits, loss = model(torch.zeros(1, 3, dtype=torch.long))
        >>> logits.shape, loss
        (torch.Size([1, 3, 10]), None)
        >>> model.generate(torch.zeros(1, 3, dtype=torch.long), max_new_tokens=5).shape
        torch.Size([1, 8])
    """

    def __init__(self, vocab_size: int, n_embd: int, n_head: int, n_layer: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        B, T = idx.shape
        tok = self.token_embedding_table(idx)  # (B, T, n_embd)
        pos = self.position_embedding_table(idx)  # (B, T, n_embd)
        x = self.blocks(tok + pos)  # (B, T, n_embd)
        logits = self.lm_head(self.ln_f(x))  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        B, T, V = logits.shape
        loss = F.cross_entropy(logits.view(B * T, V), targets.view(B * T))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        """接着 idx 再写 max_new_tokens 个字 / write max_new_tokens more tokens after idx.

        idx (B, T) long -> (B, T + max_new_tokens)，前 T 列就是 idx / the first T
        columns are idx. T 可以比 block_size 长 / T may exceed block_size.

        每一步：裁到最后 block_size 个字，取最后一个位置的 logits，softmax，用
        ``torch.multinomial`` 抽一个字，接在后面。每一步对整批只调用一次
        ``torch.multinomial(probs, num_samples=1)``（probs 形状 (B, V)）：评分程序
        用同样的随机数重放，比较抽出来的字。
        Each step: crop to the last block_size tokens, take the last position's
        logits, softmax, draw one token with ``torch.multinomial``, append it.
        Call ``torch.multinomial(probs, num_samples=1)`` once per step for the
        whole batch (probs of shape (B, V)): the grader replays the same random
        numbers and compares the tokens drawn.
        """
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size :]  # (B, <= block_size): the positions the model knows
            logits, _ = self(idx_cond)  # (B, T, vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the last position only
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
        return idx
