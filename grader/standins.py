"""Stand-ins for the parts of a GPT that other exercises build.

ex6 is graded with these in place of the student's own Head,
MultiHeadAttention and FeedForward, and ex7 with a stand-in Block, so that a
mistake in ex5 (or in the attention, for the Block; or in ex6, for the GPT)
never costs points twice. A check names the parts to stand in by the
contract's class names; while the module under test is built, those names in
the exercise file's namespace, and every other name bound to the same class
(an alias), mean the stand-ins (``standing_in``). The sibling module an
exercise imports (ex5_head for ex6, ex6_block for ex7) is the grader's too
(``SIBLINGS``). So it does not matter whether the student imports Head from
ex5_head or pastes a Head of their own into ex6_block.py (or Block, for ex7).

Each stand-in keeps the arguments it was built with, bound to the contract's
signature (``built_with``): a check compares them with the reference's, so
``Head(n_embd, head_size, dropout, block_size)``, a forgotten dropout or the
wrong number of heads is seen although the stand-in computes the same either
way. None of them is a solution to any exercise: each is a small,
deterministic, causal module.
"""
import contextlib
import sys
import types

import torch
import torch.nn as nn


class StandIn(nn.Module):
    """A part built by the grader's code in place of the student's."""

    contract = ""  # the class it stands in for
    built_with: dict


class Head(StandIn):
    """Has the contract's ``key``, ``query`` and ``value`` but works position by position."""

    contract = "Head"

    def __init__(self, n_embd, head_size, block_size, dropout=0.0):
        super().__init__()
        self.built_with = {"n_embd": n_embd, "head_size": head_size, "block_size": block_size, "dropout": dropout}
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.query(x) * self.key(x))  # (B, T, hs)
        return torch.tanh(self.value(x)) * gate  # (B, T, hs)


class Attention(StandIn):
    """Stands in for MultiHeadAttention: a causal running maximum over time."""

    contract = "MultiHeadAttention"

    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.built_with = {"n_embd": n_embd, "n_head": n_head, "block_size": block_size, "dropout": dropout}
        self.standin = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cummax(self.standin(x), dim=-2).values  # (B, T, C), position t sees 0..t


class FeedForward(StandIn):
    """Stands in for FeedForward: one position-wise layer."""

    contract = "FeedForward"

    def __init__(self, n_embd, dropout=0.0):
        super().__init__()
        self.built_with = {"n_embd": n_embd, "dropout": dropout}
        self.standin = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.standin(x))  # (B, T, C)


class Block(StandIn):
    """Stands in for Block: a residual, causal running mean over time."""

    contract = "Block"

    def __init__(self, n_embd, n_head, block_size, dropout=0.0):
        super().__init__()
        self.built_with = {"n_embd": n_embd, "n_head": n_head, "block_size": block_size, "dropout": dropout}
        self.standin = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.standin(x))  # (B, T, C)
        seen = torch.arange(1, x.shape[-2] + 1, dtype=x.dtype, device=x.device).unsqueeze(-1)  # (T, 1): positions 0..t
        return x + torch.cumsum(h, dim=-2) / seen  # (B, T, C), position t sees 0..t


BY_CONTRACT = {cls.contract: cls for cls in (Head, Attention, FeedForward, Block)}


@contextlib.contextmanager
def standing_in(namespace, names):
    """While the block runs, each of ``names`` (contract class names) in the
    module ``namespace``, and every other global bound to the same object,
    is the stand-in."""
    scope = vars(namespace)
    saved: dict = {}
    for name in names:
        original = scope.get(name)
        aliases = [key for key, value in scope.items() if original is not None and value is original]
        for key in {name, *aliases}:
            saved.setdefault(key, scope.get(key, _ABSENT))
            scope[key] = BY_CONTRACT[name]
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is _ABSENT:
                scope.pop(key, None)
            else:
                scope[key] = value


_ABSENT = object()


def parts(module: nn.Module) -> list:
    """Every stand-in inside ``module``: [path, contract class, arguments it was built with]."""
    return [[path, m.contract, dict(m.built_with)] for path, m in module.named_modules() if isinstance(m, StandIn)]


def head_module() -> types.ModuleType:
    """A module object that can be placed in ``sys.modules["ex5_head"]``."""
    mod = types.ModuleType("ex5_head", "grader stand-in for ex5_head")
    mod.Head = Head
    return mod


def block_module() -> types.ModuleType:
    """A module object that can be placed in ``sys.modules["ex6_block"]``."""
    mod = types.ModuleType("ex6_block", "grader stand-in for ex6_block")
    mod.Block = Block
    mod.MultiHeadAttention, mod.FeedForward = Attention, FeedForward  # what else ex6_block defines
    return mod


# Which sibling modules an exercise imports as stand-ins instead of the
# student's own: ex6 never runs the student's ex5_head.py, ex7 never their ex6_block.py.
SIBLINGS = {"ex6_block": {"ex5_head": head_module}, "ex7_gpt": {"ex6_block": block_module}}


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
