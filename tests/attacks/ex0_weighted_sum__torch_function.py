"""Attack: return an object whose ``__torch_function__`` answers every torch
call (allclose, isclose, ...) with "equal", and which pretends to have the
right shape and dtype. It is not a tensor: refused, 0 points."""
import torch


class Chameleon:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True

    def __eq__(self, other):
        return True

    def to(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return lambda *args, **kwargs: True


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return Chameleon(values.shape[:-2] + values.shape[-1:], values.dtype)
