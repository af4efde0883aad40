"""Attack: answer with an 80 MB tensor, over the 8 MB message cap
(grader/child/protocol.py). The grading process refuses the message unread: 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.zeros(20_000_000)
