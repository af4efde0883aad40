"""Stand-ins for the parts of a GPT that other exercises build.

ex6 is graded with these in place of the student's own Head,
MultiHeadAttention and FeedForward, and ex7 with a stand-in Block, so that a
mistake in ex5 (or in the attention, for the Block; or in ex6, for the GPT)
never costs points twice. A check names the parts to stand in by the
contract's class names; while the module under test is built, those names in
the exercise file's namespace, and every other name bound to the same class
(an alias), mean the stand-ins (``standing_in``). So it does not matter
whether the student imports Head from ex5_head or pastes a Head of their own
into ex6_block.py (or Block, for ex7).

Functions too: while an exercise is graded, every earlier exercise's module
(ex0_weighted_sum ... ex4_masking for ex5, ex5_head for ex6, ...) is the
grader's (``install_siblings``), offering what the table says that exercise
defines: the classes above, and functions whose answers the grading process
gives, from the reference (``asking``). A student's ex5 built with ``from
ex3_scaling import scale_scores`` is graded with a right scale_scores whatever
their own ex3 does; ex3's points come from ex3_scaling.py alone, graded in its
own child.

Each stand-in keeps the arguments it was built with, bound to the contract's
signature (``built_with``): a check compares them with the reference's, so
``Head(n_embd, head_size, dropout, block_size)``, a forgotten dropout or the
wrong number of heads is seen although the stand-in computes the same either
way. None of the classes is a solution to any exercise: each is a small,
deterministic, causal module. The functions hold no code of a right answer
at all: a child only sees what the grading process answers for the inputs
its code passes, and the student edition, which has no reference, keeps a
later exercise's imports of earlier functions to the student's own files.
"""

import contextlib
import sys
import types

import torch
import torch.nn as nn

from grader.exercises import EXERCISES


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


# --- the modules of earlier exercises -----------------------------------------
#
# While exercise N is graded, the module name of every exercise before it (in
# the table's order) is the grader's: ``from ex3_scaling import scale_scores``,
# ``import ex2_scores as s2``, ``importlib.import_module("ex0_weighted_sum")``
# all find a module offering that exercise's ``defines``, never the student's
# own file beside theirs. Its classes are the stand-ins above (BY_CONTRACT).
# Its functions are asked of the grading process (``asking``), which answers
# with the reference: the value, and in backward the gradient, so a Head
# built on them trains as one built on the student's own. No right answer's
# code ever reaches a child: it could carry it out to its feedback, and a
# student who resubmits would have it.


def earlier(exercise_id: str) -> tuple:
    """The exercises before ``exercise_id`` in the table (none for an unknown id)."""
    ids = [e.id for e in EXERCISES]
    return EXERCISES[: ids.index(exercise_id)] if exercise_id in ids else ()


def functions_of(exercise) -> tuple:
    """The functions (not the stand-in classes) an exercise defines."""
    return tuple(name for name in exercise.defines if name not in BY_CONTRACT)


def _split(args: tuple, kwargs: dict):
    """The arguments as a template the grader can rebuild ({"$arg": i} where
    tensor i goes) and the tensors, detached."""
    tensors = []

    def plain(value):
        if isinstance(value, torch.Tensor):
            tensors.append(value)
            return {"$arg": len(tensors) - 1}
        if value is None or type(value) in (int, float, bool):
            return value
        raise TypeError(f"the grader's stand-in takes tensors and numbers, not {type(value).__name__}")

    template = {"args": [plain(a) for a in args], "kwargs": {str(k): plain(v) for k, v in kwargs.items()}}
    return template, tensors


class _Asked(torch.autograd.Function):
    """An earlier exercise's function, computed by the grading process: the
    forward asks for the value, the backward for the vector-Jacobian product."""

    @staticmethod
    def forward(ctx, ask, key, template, *tensors):
        ctx.ask, ctx.key, ctx.template = ask, key, template
        ctx.save_for_backward(*tensors)
        return ask(key, template, [t.detach() for t in tensors], None)

    @staticmethod
    def backward(ctx, grad):
        tensors = ctx.saved_tensors
        grads = ctx.ask(ctx.key, ctx.template, [t.detach() for t in tensors], grad.detach())
        return (None, None, None, *grads)


def asking(exercise_id: str, name: str, ask):
    """A function that looks like the exercise's ``name`` and asks ``ask(key,
    template, tensors, grad)`` for its answers."""

    def function(*args, **kwargs):
        template, tensors = _split(args, kwargs)
        return _Asked.apply(ask, [exercise_id, name], template, *tensors)

    function.__name__ = function.__qualname__ = name
    function.__module__ = exercise_id
    function.__doc__ = f"The grader's {name}: the grading process computes it, with the reference."
    return function


def earlier_module(exercise, ask=None) -> types.ModuleType | None:
    """The grader's module for an earlier ``exercise``: its ``defines`` and
    torch, nothing else. None where it defines functions and there is no
    ``ask`` (the student edition has no reference to ask: a later exercise
    imports the student's own earlier file there)."""
    functions = functions_of(exercise)
    if functions and ask is None:
        return None
    mod = types.ModuleType(exercise.id, f"The grader's stand-in for {exercise.id}: {', '.join(exercise.defines)}.")
    # Named in "cannot import name ... from ex3_scaling (...)", where a
    # later exercise asks for a name the exercise does not define.
    mod.__file__ = f"the grader's stand-in, which offers {', '.join(exercise.defines)}"
    setattr(mod, "torch", torch)  # as the exercise's own module has it
    for name in functions:
        setattr(mod, name, asking(exercise.id, name, ask))
    for name in exercise.defines:
        if name in BY_CONTRACT:
            setattr(mod, name, BY_CONTRACT[name])
    return mod


def install_siblings(exercise_id: str, ask=None) -> dict:
    """Put the grader's modules of the exercises before ``exercise_id`` into
    ``sys.modules`` (``ask``: how their functions are answered; without it,
    exercises that define functions are left to the student's own files);
    return what they replaced."""
    saved = {}
    for exercise in earlier(exercise_id):
        mod = earlier_module(exercise, ask)
        if mod is not None:
            saved[exercise.id] = sys.modules.get(exercise.id)
            sys.modules[exercise.id] = mod
    return saved


def restore_siblings(saved: dict) -> None:
    for name, old in saved.items():
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old
