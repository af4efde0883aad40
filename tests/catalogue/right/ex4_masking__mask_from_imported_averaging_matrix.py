"""ex4 alternative: the mask taken from ex1's averaging_matrix (its zeros are the future), while the student's own ex1 is wrong."""
# submitted with: wrong/ex1_averaging__triu.py
import torch
import ex1_averaging


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """Every score above the diagonal (j > i) becomes -inf; a new tensor."""
    future = ex1_averaging.averaging_matrix(scores.shape[-1]).to(scores.device) == 0  # (T, T)
    return scores.masked_fill(future, float("-inf"))


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """Causal mask, then softmax over the last dimension."""
    return torch.softmax(causal_mask(scores), dim=-1)
