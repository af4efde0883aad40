"""ex0 mistake, written another way: torch.matmul(softmax(scores), values) as for one row, which broadcasts a batch to (B, B, C).
zh: 同一个错误的另一种写法：照一行分数的样子写 torch.matmul(softmax(scores), values)，一批输入会广播成 (B, B, C)。
"""
# diagnosis: You computed weights @ values
import torch
import torch.nn.functional as F


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    probs = F.softmax(scores, dim=-1)
    return torch.matmul(probs, values)  # the page's one-row example, kept for a batch
