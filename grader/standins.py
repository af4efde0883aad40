"""Stand-ins for the parts of a GPT block that other exercises build.

ex6 is graded with these in place of the student's own Head, attention and
feed-forward layers, so that a mistake in ex5 never costs points in ex6. None
of them is a solution to any exercise: each is a small, deterministic,
causal module with the contract's parameter names.
"""
import sys
import types

import torch
import torch.nn as nn


class Head(nn.Module):
    """Has the contract's ``key``, ``query`` and ``value`` but works position by position."""

    def __init__(self, n_embd: int, head_size: int, block_size: int, dropout: float = 0.0):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.query(x) * self.key(x))  # (B, T, hs)
        return torch.tanh(self.value(x)) * gate  # (B, T, hs)


class Mixer(nn.Module):
    """Stands in for attention: a causal running maximum over time."""

    def __init__(self, n_embd: int):
        super().__init__()
        self.lin = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cummax(self.lin(x), dim=-2).values  # (B, T, C), position t sees 0..t


class PositionWise(nn.Module):
    """Stands in for the feed-forward layer."""

    def __init__(self, n_embd: int):
        super().__init__()
        self.lin = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.lin(x))  # (B, T, C)


_KINDS = {"mixer": Mixer, "position_wise": PositionWise}


def build(spec: dict) -> nn.Module:
    """Build a stand-in from a request's plain description, e.g. ``{"kind": "mixer", "n_embd": 8}``."""
    spec = dict(spec)
    return _KINDS[spec.pop("kind")](**spec)


def head_module() -> types.ModuleType:
    """A module object that can be placed in ``sys.modules["ex5_head"]``."""
    mod = types.ModuleType("ex5_head", "grader stand-in for ex5_head")
    mod.Head = Head
    return mod


# Which sibling modules an exercise is given as stand-ins instead of the student's own.
SIBLINGS = {"ex6_block": {"ex5_head": head_module}}


def install_siblings(exercise_id: str) -> dict:
    """Put the stand-in siblings of ``exercise_id`` into ``sys.modules``; return what they replaced."""
    saved = {}
    for name, make in SIBLINGS.get(exercise_id, {}).items():
        saved[name] = sys.modules.get(name)
        sys.modules[name] = make()
    return saved


def restore_siblings(saved: dict) -> None:
    for name, old in saved.items():
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old
