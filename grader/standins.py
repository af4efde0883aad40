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
defines: the classes above, and for functions the teacher's stand-ins of
checks/hidden/standin_functions.py, which compute what the docstrings promise.
A student's ex5 built with ``from ex3_scaling import scale_scores`` is graded
with a right scale_scores whatever their own ex3 does; ex3's points come from
ex3_scaling.py alone, graded in its own child, which gets none of them.

Each stand-in keeps the arguments it was built with, bound to the contract's
signature (``built_with``): a check compares them with the reference's, so
``Head(n_embd, head_size, dropout, block_size)``, a forgotten dropout or the
wrong number of heads is seen although the stand-in computes the same either
way. None of the classes is a solution to any exercise: each is a small,
deterministic, causal module. The functions are right answers, written in
the grader's own way; a child gets those of the exercises before its own,
never its own exercise's, and the student edition has none (there a later
exercise imports the student's own earlier files).
"""
import ast
import contextlib
import functools
import os
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
# own file beside theirs. Its classes are the stand-ins above (BY_CONTRACT);
# its functions are the teacher's (FUNCTIONS_FILE), which give the answers
# their docstrings promise and so are handed only to the children of later
# exercises, as text (``function_sources``).

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCTIONS_FILE = os.path.join(PROJECT, "checks", "hidden", "standin_functions.py")


def earlier(exercise_id: str) -> tuple:
    """The exercises before ``exercise_id`` in the table (none for an unknown id)."""
    ids = [e.id for e in EXERCISES]
    return EXERCISES[: ids.index(exercise_id)] if exercise_id in ids else ()


@functools.lru_cache(maxsize=None)
def _read_functions(path: str) -> dict | None:
    """Exercise id -> the source of its function stand-ins (the file's imports,
    then its functions named in the exercise's ``defines``); None where the
    file is not there (the student edition). An exercise with a name that is
    neither a stand-in class nor a function there (the last one's GPT, which
    no exercise imports) has none."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    tree = ast.parse(text)
    imports = [ast.get_source_segment(text, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    functions = {n.name: ast.get_source_segment(text, n) for n in tree.body if isinstance(n, ast.FunctionDef)}
    out = {}
    for e in EXERCISES:
        wanted = [name for name in e.defines if name not in BY_CONTRACT]
        if not wanted:
            continue
        if any(name not in functions for name in wanted):
            continue
        out[e.id] = "\n".join(imports) + "\n\n\n" + "\n\n\n".join(functions[name] for name in wanted) + "\n"
    return out


def function_sources(exercise_id: str, path: str = FUNCTIONS_FILE) -> dict:
    """For the grading process: the sources of the function stand-ins of the
    exercises before ``exercise_id``, by exercise id; empty where the
    teacher's file is not there (the student edition: its later exercises
    import the student's own earlier files)."""
    sources = _read_functions(path) or {}
    return {e.id: sources[e.id] for e in earlier(exercise_id) if e.id in sources}


def earlier_module(exercise, sources: dict) -> types.ModuleType | None:
    """The grader's module for an earlier ``exercise``: its ``defines`` and
    torch, nothing else. None where a function's source is missing."""
    mod = types.ModuleType(exercise.id, f"The grader's stand-in for {exercise.id}: {', '.join(exercise.defines)}.")
    # Named in "cannot import name ... from ex3_scaling (...)", where a
    # later exercise asks for a name the exercise does not define.
    mod.__file__ = f"the grader's stand-in, which offers {', '.join(exercise.defines)}"
    mod.torch = torch
    functions = [name for name in exercise.defines if name not in BY_CONTRACT]
    if functions:
        if exercise.id not in sources:
            return None
        scope: dict = {"__name__": exercise.id}
        # Its own file name: no traceback or getsource() of a stand-in reads a file.
        exec(compile(sources[exercise.id], f"<the grader's stand-in for {exercise.id}>", "exec"), scope)
        for name in functions:
            setattr(mod, name, scope[name])
    for name in exercise.defines:
        if name in BY_CONTRACT:
            setattr(mod, name, BY_CONTRACT[name])
    return mod


def install_siblings(exercise_id: str, sources: dict | None = None) -> dict:
    """Put the grader's modules of the exercises before ``exercise_id`` into
    ``sys.modules`` (``sources``: from ``function_sources``, for the functions);
    return what they replaced."""
    saved = {}
    for exercise in earlier(exercise_id):
        mod = earlier_module(exercise, sources or {})
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
