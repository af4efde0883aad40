"""Attack: ``os._exit(0)`` inside the function.

The child disappears without an answer at every call (a clean exit status is
no answer): every check reports that the process ended, 0 points.
"""
import os

import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    os._exit(0)
