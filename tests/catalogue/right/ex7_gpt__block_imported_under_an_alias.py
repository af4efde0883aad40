"""ex7 alternative: Block imported under another name, blocks built in a loop and run one by one, the loss on logits.flatten(0, 1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from ex6_block import Block as TransformerBlock


class GPT(nn.Module):
    """a small GPT: embeddings, a stack of blocks, a final layer norm and a linear head"""

    def __init__(self, vocab_size: int, n_embd: int, n_head: int, n_layer: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        layers = []
        for _ in range(n_layer):
            layers.append(TransformerBlock(n_embd, n_head, block_size, dropout))
        self.blocks = nn.Sequential(*layers)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        T = idx.size(1)
        positions = torch.arange(T, device=idx.device).unsqueeze(0)  # (1, T): broadcast over the batch
        x = self.token_embedding_table(idx) + self.position_embedding_table(positions)  # (B, T, n_embd)
        for block in self.blocks:
            x = block(x)  # (B, T, n_embd)
        logits = self.lm_head(self.ln_f(x))  # (B, T, vocab_size)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # (B * T, V) against (B * T,)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        for _ in range(max_new_tokens):
            context = idx if idx.size(1) <= self.block_size else idx[:, idx.size(1) - self.block_size :]
            logits = self(context)[0][:, -1]  # (B, vocab_size)
            probs = logits.softmax(dim=-1)  # (B, vocab_size)
            idx = torch.cat([idx, torch.multinomial(probs, 1)], dim=-1)  # (B, T + 1)
        return idx
