"""Not an attack: a correct solution whose import takes 4 s (under the 20 s
import limit). It must score full marks."""
import time

import torch

time.sleep(4)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
