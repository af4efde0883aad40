"""ex5 alternative: Head built from the student's own ex2, ex3 and ex4 functions, while their own ex3 is wrong."""
# submitted with: wrong/ex3_scaling__multiplies_by_sqrt.py
import torch
import torch.nn as nn
from ex2_scores import attention_scores
from ex3_scaling import scale_scores
from ex4_masking import causal_weights


class Head(nn.Module):
    """一个因果自注意力头 / one head of causal self-attention, from ex2, ex3 and ex4."""

    def __init__(self, n_embd: int, head_size: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.head_size = head_size
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.query(x), self.key(x), self.value(x)  # (B, T, hs) each
        wei = causal_weights(scale_scores(attention_scores(q, k), self.head_size))  # (B, T, T)
        return self.dropout(wei) @ v  # (B, T, hs)
