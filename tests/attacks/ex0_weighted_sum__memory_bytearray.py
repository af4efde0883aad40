"""Attack: allocate a 10 GB bytearray at import, then a correct function.
The memory limit makes the import fail with MemoryError: 0 points."""
import torch

HOARD = bytearray(10 * 1024**3)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
