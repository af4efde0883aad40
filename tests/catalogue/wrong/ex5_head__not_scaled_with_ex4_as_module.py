"""ex5 mistake: the scores are not scaled, in a Head built with ex2 and ex4 imported as modules while the student's own ex4 is wrong.
zh: 分数没有缩放；这个 Head 把 ex2 和 ex4 当作模块导入，而学生自己的 ex4 是错的。
"""
# submitted with: wrong/ex4_masking__masks_the_diagonal.py
# diagnosis: The scores are not scaled
import torch.nn as nn
import ex2_scores
import ex4_masking as m4


class Head(nn.Module):
    """一个因果自注意力头 / one head of causal self-attention."""

    def __init__(self, n_embd, head_size, block_size, dropout=0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        wei = m4.causal_weights(ex2_scores.attention_scores(self.query(x), self.key(x)))  # (B, T, T), never scaled
        return self.dropout(wei) @ self.value(x)  # (B, T, hs)
