"""ex4 alternative: causal_weights as ex0's weighted_sum (imported as ws) of the identity, while the student's own ex0 is wrong."""
# submitted with: wrong/ex0_weighted_sum__softmax_dim0.py
import torch
from ex0_weighted_sum import weighted_sum as ws


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """Every score above the diagonal (j > i) becomes -inf; a new tensor."""
    T = scores.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=1)
    return scores.masked_fill(future, float("-inf"))


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """Softmax of the masked scores: row i of ws(masked, I) is softmax(masked[i])."""
    T = scores.shape[-1]
    return ws(causal_mask(scores), torch.eye(T, dtype=scores.dtype, device=scores.device))
