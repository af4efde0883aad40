"""ex5 alternative: earlier exercises imported as modules (an alias, importlib), while the student's ex2 is a stub and their ex4 wrong."""
# submitted with: the stub of ex2_scores
# submitted with: wrong/ex4_masking__masks_the_diagonal.py
import importlib

import torch
import torch.nn as nn
import ex2_scores as s2
import ex4_masking

scaling = importlib.import_module("ex3_scaling")


class Head(nn.Module):
    """一个因果自注意力头 / one head of causal self-attention."""

    def __init__(self, n_embd, head_size, block_size, dropout=0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        k = self.key(x)
        scores = scaling.scale_scores(s2.attention_scores(self.query(x), k), k.shape[-1])  # (B, T, T)
        wei = torch.softmax(ex4_masking.causal_mask(scores), dim=-1)  # (B, T, T)
        return torch.matmul(self.drop(wei), self.value(x))  # (B, T, hs)
