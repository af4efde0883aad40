"""ex4 mistake: causal_weights is ex0's weighted_sum (imported as ws) of the identity, with no mask, while the student's own ex0 is a stub.
zh: causal_weights 借 ex0 的 weighted_sum（以 ws 的名字导入）对单位矩阵加权，没有掩码；学生自己的 ex0 还没写。
"""
# submitted with: the stub of ex0_weighted_sum
# diagnosis: There is no mask
# diagnosis: The future got weight
import torch
from ex0_weighted_sum import weighted_sum as ws


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """Every score above the diagonal (j > i) becomes -inf; a new tensor."""
    T = scores.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=1)
    return scores.masked_fill(future, float("-inf"))


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """Softmax of the scores, but the mask is forgotten."""
    T = scores.shape[-1]
    return ws(scores, torch.eye(T, dtype=scores.dtype, device=scores.device))
