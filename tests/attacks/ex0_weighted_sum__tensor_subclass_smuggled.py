"""Attack: return a tensor subclass and disable the child's filter that would
have turned it into a type name, so the subclass itself is pickled and sent.

The grading process reads answers with torch.load(weights_only=True), which
refuses to rebuild a class it does not know: 0 points.
"""
import sys

import torch


class Answer(torch.Tensor):
    def __eq__(self, other):
        return torch.ones(self.shape, dtype=torch.bool)

    __hash__ = torch.Tensor.__hash__


sys.modules["grader.worker"]._plain = lambda value: value


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out.as_subclass(Answer)
