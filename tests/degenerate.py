"""Degenerate submissions, generated from the solutions (see test_degenerate.py).

``source(exercise, targets, kind)`` is the text of an exercise file: the
solution of ``exercise``, followed by code that

1. runs the solution's source once more into a private dict, the
   *reference* (its functions and classes see only each other there, so
   ``causal_weights`` keeps calling the real ``causal_mask``, whatever is
   stubbed below);
2. redefines every name in ``targets`` to compute the reference's answer (to
   learn its shape and dtype) and return a degenerate value of the ``kind``
   instead; a class keeps the solution's ``__init__`` (it subclasses the
   solution's class, defined earlier in the same file, so the grader's
   stand-ins are built where the solution builds its parts), so its
   parameters exist and the grader's weights load;
3. redefines every other public function or class of the exercise to raise
   ``NotImplementedError`` (a class already in ``__init__``).
"""
import ast
from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parent.parent / "solutions"

# Every public function and class of every exercise: what a student writes.
# Written out, not read from the solutions, so that test_catalogue_covers_every_target
# notices a function added to an exercise later without degenerate coverage.
TARGETS: dict[str, tuple[str, ...]] = {
    "ex0_weighted_sum": ("weighted_sum",),
    "ex1_averaging": ("averaging_matrix", "average_past"),
    "ex2_scores": ("attention_scores",),
    "ex3_scaling": ("scale_scores",),
    "ex4_masking": ("causal_mask", "causal_weights"),
    "ex5_head": ("Head",),
    "ex6_block": ("MultiHeadAttention", "FeedForward", "Block"),
}

KINDS: tuple[str, ...] = ("zeros", "constant", "input", "random", "nan", "wrong_shape")
# Not degenerate: the targets return the reference's own answer. Graded with
# every target at once it must score full marks, which shows that the
# machinery below changes nothing but the answers.
CONTROL = "reference"

# Not 0, not 1 and not 1/n: a 1 would be the right answer wherever T = 1
# (averaging_matrix(1), the weights of one position), and a check cannot
# and need not tell ``torch.ones`` from the truth there.
CONSTANT = 0.3


def public_definitions(exercise: str) -> dict[str, str]:
    """The top-level public functions and classes of a solution: name -> "function" or "class"."""
    tree = ast.parse((SOLUTIONS / f"{exercise}.py").read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            out[node.name] = "class" if isinstance(node, ast.ClassDef) else "function"
    return out


# The part of every generated file after the solution. Names start with "_"
# so that they never clash with (or look like) the exercise's own.
_MACHINERY = '''
import torch as _torch
import torch.nn as _nn

_REFERENCE = {"__name__": "_degenerate_reference"}
exec(compile(_REFERENCE_SOURCE, "<reference>", "exec"), _REFERENCE)

# A private generator: the "random" answers are the same on every run, and the
# global generator (which the grader seeds for dropout) is left alone.
_GENERATOR = _torch.Generator().manual_seed(20240601)


def _first_tensor(args, kwargs):
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, _torch.Tensor):
            return value
    return None


def _degenerate(out, args, kwargs):
    """The degenerate answer of kind _KIND in place of the reference's ``out``."""
    if _KIND == "reference":
        return out
    if _KIND == "input":
        first = _first_tensor(args, kwargs)
        if first is None:  # averaging_matrix(T): its "input unchanged" is the identity
            return _torch.eye(out.shape[-1], dtype=out.dtype)
        return first
    if _KIND == "wrong_shape":
        # The right values, one element short (or, for a scalar, one dim too many):
        # only a check of the shape can tell.
        return out[..., :-1] if out.dim() else out.unsqueeze(0)
    if _KIND == "zeros":
        value = _torch.zeros_like(out)
    elif _KIND == "constant":
        value = _torch.full_like(out, _CONSTANT)
    elif _KIND == "random":
        value = _torch.randn(out.shape, generator=_GENERATOR, dtype=out.dtype)
    elif _KIND == "nan":
        value = _torch.full_like(out, float("nan"))
    else:
        raise AssertionError(_KIND)
    if out.requires_grad:
        # Stay in the autograd graph, like ``out * 0`` would (nan_to_num: the
        # -inf of a mask times 0 is NaN): backward runs and gives zero gradients,
        # so a gradient check must look at the gradients, not merely catch an error.
        value = value + out.nan_to_num() * 0
    return value


def _degenerate_function(name):
    reference = _REFERENCE[name]

    def degenerate(*args, **kwargs):
        return _degenerate(reference(*args, **kwargs), args, kwargs)

    degenerate.__name__ = degenerate.__qualname__ = name
    return degenerate


def _degenerate_class(name):
    # The solution's class as defined above in this very file (not the private
    # reference's): its __init__ looks up MultiHeadAttention or Head in this
    # file's globals, where the grader swaps in its stand-ins.
    class Degenerate(globals()[name]):  # the solution's __init__, parameters and submodules
        def forward(self, *args, **kwargs):
            return _degenerate(super().forward(*args, **kwargs), args, kwargs)

    Degenerate.__name__ = Degenerate.__qualname__ = name
    return Degenerate


def _not_implemented(name):
    return NotImplementedError(f"{_EXERCISE}: {name} 尚未完成 / not implemented yet")


def _stub_function(name):
    def stub(*args, **kwargs):
        raise _not_implemented(name)

    stub.__name__ = stub.__qualname__ = name
    return stub


def _stub_class(name):
    class Stub(_nn.Module):
        def __init__(self, *args, **kwargs):
            raise _not_implemented(name)

        def forward(self, *args, **kwargs):
            raise _not_implemented(name)

    Stub.__name__ = Stub.__qualname__ = name
    return Stub

'''


def source(exercise: str, targets: tuple[str, ...], kind: str) -> str:
    """The text of a degenerate ``exercise`` file: ``targets`` answer with ``kind``, the rest raise."""
    assert kind in KINDS or kind == CONTROL, kind
    solution = (SOLUTIONS / f"{exercise}.py").read_text(encoding="utf-8")
    definitions = public_definitions(exercise)
    assert set(targets) <= set(definitions), (exercise, targets)
    lines = [
        solution.rstrip("\n"),
        "",
        "",
        f"# --- degenerate catalogue: {exercise}, {', '.join(targets)} -> {kind} ---",
        f"_EXERCISE = {exercise!r}",
        f"_KIND = {kind!r}",
        f"_CONSTANT = {CONSTANT!r}",
        f"_REFERENCE_SOURCE = {solution!r}",
        _MACHINERY,
    ]
    for name, what in definitions.items():
        role = "degenerate" if name in targets else "stub"
        lines.append(f"{name} = _{role}_{what}({name!r})")
    return "\n".join(lines) + "\n"
