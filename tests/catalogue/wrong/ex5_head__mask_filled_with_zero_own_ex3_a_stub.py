"""ex5 mistake: the future filled with 0 instead of -inf, in a Head that imports scale_scores from the student's ex3, still a stub.
zh: 未来填成 0 而不是 -inf；这个 Head 从学生自己的 ex3 导入 scale_scores，而 ex3 还没写。
"""
# submitted with: the stub of ex3_scaling
# diagnosis: Earlier outputs changed with later positions
# diagnosis: You filled the future's scores with 0, not -inf
import torch
import torch.nn as nn
from torch.nn import functional as F
from ex3_scaling import scale_scores


class Head(nn.Module):
    """一个因果自注意力头 / one head of causal self-attention."""

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
        wei = scale_scores(q @ k.transpose(-2, -1), k.shape[-1])  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, 0.0)  # (B, T, T)
        wei = F.softmax(wei, dim=-1)
        return self.dropout(wei) @ self.value(x)  # (B, T, hs)
