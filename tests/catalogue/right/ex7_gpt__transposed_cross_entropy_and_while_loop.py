"""ex7 alternative: F.cross_entropy on logits transposed to (B, V, T), and generate as a while loop drawing with torch.distributions.Categorical."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from ex6_block import Block


class GPT(nn.Module):
    """a small GPT: embeddings, a stack of blocks, a final layer norm and a linear head"""

    def __init__(self, vocab_size, n_embd, n_head, n_layer, block_size, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*(Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table.weight[: idx.shape[1]]  # (T, C): rows 0..T-1 of the table
        logits = self.lm_head(self.ln_f(self.blocks(tok_emb + pos_emb)))  # (B, T, V)
        if targets is None:
            return logits, None
        # cross_entropy takes the classes in dim 1: (B, V, T) against (B, T).
        return logits, F.cross_entropy(logits.transpose(1, 2), targets)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        end = idx.shape[1] + max_new_tokens
        while idx.shape[1] < end:
            logits, _ = self(idx[:, -self.block_size :])  # (B, T', V)
            step = torch.distributions.Categorical(logits=logits[:, -1, :]).sample()  # (B,)
            idx = torch.cat((idx, step[:, None]), dim=1)  # (B, T + 1)
        return idx
