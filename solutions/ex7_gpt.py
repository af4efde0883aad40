"""ex7_gpt: 从 GPT 块到一个会写字的 GPT / from GPT blocks to a GPT that writes.

把字变成向量（词嵌入加位置嵌入），叠几个 GPT 块，最后把每个位置的向量变回
“下一个字是什么”的分数（logits）。生成时每次只看最后 block_size 个字，
按最后一个位置的 softmax 抽下一个字，接上，再来。
Turn characters into vectors (token embedding plus position embedding), stack
a few GPT blocks, and turn each position's vector back into scores (logits)
for the next character. To write, look at the last block_size characters
only, sample the next one from the softmax of the last position, append it,
and go again.
"""
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

    位置 t 的 logits 只取决于位置 0..t 的字。T 可以是 1 到 block_size 之间的任意长度。
    The logits at position t depend on the tokens at positions 0..t only. T
    may be any length from 1 to block_size.

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
        # BEGIN SOLUTION
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)
        # END SOLUTION

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        # BEGIN SOLUTION
        B, T = idx.shape
        tok = self.token_embedding_table(idx)  # (B, T, n_embd)
        pos = self.position_embedding_table(torch.arange(T, device=idx.device))  # (T, n_embd)
        x = self.blocks(tok + pos)  # (B, T, n_embd)
        logits = self.lm_head(self.ln_f(x))  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        B, T, V = logits.shape
        loss = F.cross_entropy(logits.view(B * T, V), targets.view(B * T))
        return logits, loss
        # END SOLUTION

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        """接着 idx 再写 max_new_tokens 个字 / write max_new_tokens more tokens after idx.

        idx (B, T) long -> (B, T + max_new_tokens)，前 T 列就是 idx / the first T
        columns are idx. T 可以比 block_size 长 / T may exceed block_size.

        每一步：裁到最后 block_size 个字，取最后一个位置的 logits，softmax，按这些
        概率抽一个字（比如用 ``torch.multinomial``），接在后面。评分程序让很多行
        各抽一个字，数每个字被抽到的次数，和 softmax 的概率比：怎么抽都行，只要
        每个字被抽到的概率就是 softmax 给它的概率（不加温度，不做 top-k、top-p）。
        Each step: crop to the last block_size tokens, take the last position's
        logits, softmax, draw one token with those probabilities (with
        ``torch.multinomial``, for example), append it. The grader has many rows
        draw a token each and compares how often each token comes out with the
        softmax: any way of drawing passes as long as each token is drawn with
        the probability the softmax gives it (no temperature, top-k or top-p).
        """
        # BEGIN SOLUTION
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size :]  # (B, <= block_size): the positions the model knows
            logits, _ = self(idx_cond)  # (B, T, vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the last position only
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
        return idx
        # END SOLUTION
