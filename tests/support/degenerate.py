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
   parameters exist and the grader's weights load. A target ``Class`` is its
   ``forward``; a class whose checks call more than one method is listed by
   method (``GPT.forward``, ``GPT.generate``), and its methods that are not
   targets raise ``NotImplementedError``;
3. redefines every other public function or class of the exercise to raise
   ``NotImplementedError`` (a class already in ``__init__``).
"""

import ast
from pathlib import Path

from grader.exercises import EXERCISES, IDS

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"


def targets_of(exercise) -> tuple[str, ...]:
    """What a degenerate file of a table row (grader/exercises.py) may answer:
    every name of its ``defines``, a class with ``methods`` by method
    (``GPT.forward``, ``GPT.generate``)."""
    out: list[str] = []
    for name in exercise.defines:
        methods = [m for m in exercise.methods if m.split(".")[0] == name]
        out += [f"{name}.forward", *methods] if methods else [name]
    return tuple(out)


# Every public function and class of every exercise (what a student writes),
# from the table; test_degenerate.py's test_catalogue_covers_every_target
# fails when a solution defines a name that the row does not list.
TARGETS: dict[str, tuple[str, ...]] = {e.id: targets_of(e) for e in EXERCISES}

KINDS: tuple[str, ...] = ("zeros", "constant", "input", "random", "nan", "wrong_shape")
# Not degenerate: the targets return the reference's own answer. Graded with
# every target at once it must score full marks, which shows that the
# machinery below changes nothing but the answers.
CONTROL = "reference"

# Not 0, not 1 and not 1/n: a 1 would be the right answer wherever T = 1
# (averaging_matrix(1), the weights of one position), and a check cannot
# and need not tell ``torch.ones`` from the truth there.
CONSTANT = 0.3
# The constant answer where the answer is token ids (generate).
CONSTANT_TOKEN = 3


def coverage_problems(ids: tuple[str, ...] = IDS, targets: dict | None = None) -> list[str]:
    """Where the targets derived from the table and the solutions disagree (none: [])."""
    targets = TARGETS if targets is None else targets
    solutions = sorted(p.stem for p in SOLUTIONS.glob("ex*.py"))
    if sorted(targets) != sorted(ids) or sorted(ids) != solutions:
        return [f"exercises {sorted(ids)}, targets {sorted(targets)} and solutions {solutions} differ"]
    out = []
    for exercise in ids:
        definitions = public_definitions(exercise)
        named = {target.split(".")[0] for target in targets[exercise]}
        if sorted(named) != sorted(definitions):
            out.append(f"{exercise}: the solution defines {sorted(definitions)}, its row's defines in grader/exercises.py say {sorted(named)}")
        for target in targets[exercise]:
            cls, _, method = target.partition(".")
            if method and definitions.get(cls) == "class" and method not in class_methods(exercise, cls):
                out.append(f"{exercise}: {target} is not a method of the solution's {cls}")
    return out


def class_methods(exercise: str, name: str) -> set[str]:
    tree = ast.parse((SOLUTIONS / f"{exercise}.py").read_text(encoding="utf-8"))
    return {f.name for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name for f in node.body if isinstance(f, ast.FunctionDef)}


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
    """The degenerate answer of kind _KIND in place of the reference's ``out``
    (of each of its tensors, for a tuple such as (logits, loss))."""
    if _KIND == "reference":
        return out
    if isinstance(out, tuple):
        return tuple(o if o is None else _degenerate(o, args, kwargs) for o in out)
    if _KIND == "input":
        first = _first_tensor(args, kwargs)
        if first is None:  # averaging_matrix(T): its "input unchanged" is the identity
            return _torch.eye(out.shape[-1], dtype=out.dtype)
        return first
    if _KIND == "wrong_shape":
        # The right values, one element short (or, for a scalar, one dim too many):
        # only a check of the shape can tell.
        return out[..., :-1] if out.dim() else out.unsqueeze(0)
    integer = not out.is_floating_point()  # token ids
    if _KIND == "zeros":
        value = _torch.zeros_like(out)
    elif _KIND == "constant":
        value = _torch.full_like(out, _CONSTANT_TOKEN if integer else _CONSTANT)
    elif _KIND == "random" and integer:
        value = _torch.randint(int(out.max()) + 1, out.shape, generator=_GENERATOR)
    elif _KIND == "random":
        value = _torch.randn(out.shape, generator=_GENERATOR, dtype=out.dtype)
    elif _KIND == "nan":
        # Token ids cannot be NaN: a float answer of NaN in their place.
        value = _torch.full(out.shape, float("nan")) if integer else _torch.full_like(out, float("nan"))
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


def _degenerate_methods(name, degenerate, stubbed):
    # The solution's class (as _degenerate_class) whose methods in ``degenerate``
    # answer with _KIND and those in ``stubbed`` raise. While a degenerate
    # method computes the reference's answer every method is the solution's
    # again: generate calls forward, even where forward itself raises.
    base = globals()[name]

    def make(method, role):
        solution = getattr(base, method)

        def wrapper(self, *args, **kwargs):
            if self.__dict__.get("_answering"):
                return solution(self, *args, **kwargs)
            if role == "stub":
                raise _not_implemented(f"{name}.{method}")
            self.__dict__["_answering"] = True
            try:
                out = solution(self, *args, **kwargs)
            finally:
                self.__dict__["_answering"] = False
            return _degenerate(out, args, kwargs)

        wrapper.__name__ = wrapper.__qualname__ = method
        return wrapper

    methods = {m: make(m, "degenerate") for m in degenerate}
    methods.update({m: make(m, "stub") for m in stubbed})
    Degenerate = type(name, (base,), methods)
    Degenerate.__qualname__ = name
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
    assert set(targets) <= set(TARGETS[exercise]), (exercise, targets)
    assert {target.split(".")[0] for target in targets} <= set(definitions), (exercise, targets)
    lines = [
        solution.rstrip("\n"),
        "",
        "",
        f"# --- degenerate catalogue: {exercise}, {', '.join(targets)} -> {kind} ---",
        f"_EXERCISE = {exercise!r}",
        f"_KIND = {kind!r}",
        f"_CONSTANT = {CONSTANT!r}",
        f"_CONSTANT_TOKEN = {CONSTANT_TOKEN!r}",
        f"_REFERENCE_SOURCE = {solution!r}",
        _MACHINERY,
    ]
    for name, what in definitions.items():
        methods = [target.split(".", 1)[1] for target in TARGETS[exercise] if target.startswith(name + ".")]
        degenerate = [m for m in methods if f"{name}.{m}" in targets]
        if degenerate:
            stubbed = [m for m in methods if m not in degenerate]
            lines.append(f"{name} = _degenerate_methods({name!r}, {degenerate!r}, {stubbed!r})")
        else:
            role = "degenerate" if name in targets else "stub"
            lines.append(f"{name} = _{role}_{what}({name!r})")
    return "\n".join(lines) + "\n"
