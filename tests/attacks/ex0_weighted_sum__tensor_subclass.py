"""Attack: return the right values in a torch.Tensor subclass whose
comparisons always say "equal".

The child sends only exact torch.Tensor objects; anything else is named, not
sent, and the grading process refuses it: 0 points even though the values are
right.
"""
import torch


class Answer(torch.Tensor):
    def __eq__(self, other):
        return torch.ones(self.shape, dtype=torch.bool)

    def allclose(self, *args, **kwargs):
        return True

    __hash__ = torch.Tensor.__hash__


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out.as_subclass(Answer)
