"""Attack: ask torch for 40 GB (torch.empty(10_000_000_000)) and fill it.
The memory limit (RLIMIT_AS) makes the allocation fail at once: 0 points."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    hoard = torch.empty(10_000_000_000)
    hoard.fill_(1.0)
    return hoard[: values.shape[-1]]
