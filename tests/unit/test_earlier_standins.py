"""The grader's modules for earlier exercises (``grader/child/standins.py``,
``install_siblings``; ``grader/engine/earlier.py``): while exercise N is graded,
every earlier exercise's module name means the grader's module, offering what
the table says that exercise defines; its functions are answered by the
grading process from the reference, values and gradients, as the docstrings
promise, only for exercises before N, never bigger than a check's; no right
answer's code reaches a child. Graded behaviour is in tests/grading/test_catalogue.py
(files ``# submitted with:`` wrong earlier files); here the modules themselves.
"""

import ast
import importlib
import inspect
import os
import sys
from pathlib import Path

import pytest
import torch
from conftest import EXERCISES, ROOT, SOLUTIONS

from grader.authoring.regions import solution_regions
from grader.child import standins
from grader.engine import earlier
from grader.exercises import BY_ID, IDS
from grader.exercises import EXERCISES as TABLE

FUNCTION_EXERCISES = [e.id for e in TABLE if any(n not in standins.BY_CONTRACT for n in e.defines) and e.id != IDS[-1]]


def public_names(path: str) -> list[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]


@pytest.mark.parametrize("ex", IDS)
def test_defines_are_the_stubs_names(ex):
    """The table's ``defines`` are the functions and classes the stub asks for, in its order."""
    assert list(BY_ID[ex].defines) == public_names(os.path.join(EXERCISES, ex + ".py"))


def _references() -> dict:
    from grader.engine.reference_endpoint import ReferenceEndpoint

    return {ex: ReferenceEndpoint(ex, os.path.join(SOLUTIONS, ex + ".py")) for ex in IDS}


REFERENCES = _references()


def asker(exercise_id: str):
    """The child's ``ask`` wired straight to the grading process's answer
    (``earlier.answer``), without the pipes in between."""

    def ask(key, template, tensors, grad):
        reply = earlier.answer(REFERENCES, exercise_id, {"earlier": key, "template": template, "tensors": tensors, "grad": grad})
        if "error" in reply:
            raise RuntimeError(f"{key[1]}: {reply['error']}")
        return reply["value"] if grad is None else tuple(reply["grads"])

    return ask


@pytest.fixture
def installed():
    saved_all = []

    def install(exercise_id, answered=True):
        saved_all.append(standins.install_siblings(exercise_id, asker(exercise_id) if answered else None))

    yield install
    for saved in reversed(saved_all):
        standins.restore_siblings(saved)


@pytest.mark.parametrize("ex", IDS)
def test_every_earlier_module_is_the_graders(ex, installed):
    """Every earlier exercise, and only those, by every way of importing."""
    installed(ex)
    position = IDS.index(ex)
    for earlier_exercise in TABLE[:position]:
        mod = sys.modules[earlier_exercise.id]
        assert mod is importlib.import_module(earlier_exercise.id) and mod.__name__ == earlier_exercise.id
        assert "grader's stand-in" in mod.__file__
        offered = {k for k in vars(mod) if not k.startswith("__")}
        assert offered == set(earlier_exercise.defines) | {"torch"}, earlier_exercise.id
        for name in earlier_exercise.defines:
            got = getattr(mod, name)
            if name in standins.BY_CONTRACT:
                assert got is standins.BY_CONTRACT[name]
            else:
                assert got.__module__ == earlier_exercise.id and callable(got)
    for later in IDS[position:]:
        assert later not in sys.modules or "grader's stand-in" not in getattr(sys.modules[later], "__file__", "")


def test_a_name_the_exercise_does_not_define_is_refused_clearly(installed):
    installed("ex5_head")
    namespace: dict = {}
    with pytest.raises(ImportError) as info:
        exec("from ex4_masking import Head", namespace)
    assert "the grader's stand-in, which offers causal_mask, causal_weights" in str(info.value)


def test_a_child_holds_no_right_answer(installed):
    """A child's function stand-ins are the one proxy of grader/child/standins.py,
    which computes nothing: no right answer's code reaches a child, which
    could carry it out in its feedback for a student to resubmit."""
    installed("ex7_gpt")
    for ex in FUNCTION_EXERCISES:
        for name in standins.functions_of(BY_ID[ex]):
            fn = getattr(sys.modules[ex], name)
            assert fn.__code__ is standins.asking(ex, name, None).__code__
    proxy = "".join(inspect.getsource(x) for x in (standins.asking, standins._Asked, standins._split))
    assert not [line for line in proxy.splitlines() if line.split("#")[0].strip() in _solution_lines()]
    assert not Path(ROOT, "checks", "hidden", "standin_functions.py").exists()  # the answers' code lives in solutions/ alone


def test_questions_about_this_or_a_later_exercise_are_refused():
    """The child of ``ex3_scaling`` asking for ``scale_scores``, or anything later: no answer."""
    x = torch.randn(2, 3, 3)
    for ex, key in (("ex3_scaling", ["ex3_scaling", "scale_scores"]), ("ex3_scaling", ["ex4_masking", "causal_mask"]), ("ex5_head", ["ex5_head", "Head"]), ("ex5_head", ["ex2_scores", "helper"])):
        reply = earlier.answer(REFERENCES, ex, {"earlier": key, "template": {"args": [{"$arg": 0}], "kwargs": {}}, "tensors": [x], "grad": None})
        assert reply == {"error": f"{key[0]}.{key[1]} is no function of an exercise before {ex}"}


@pytest.mark.parametrize(
    "key, template, tensors",
    [
        (["ex1_averaging", "averaging_matrix"], {"args": [100_000], "kwargs": {}}, []),  # T x T would be 40 GB
        (["ex2_scores", "attention_scores"], {"args": [{"$arg": 0}, {"$arg": 0}], "kwargs": {}}, [torch.zeros(1, 4000, 1)]),  # a (4000, 4000) answer
        (["ex3_scaling", "scale_scores"], {"args": [{"$arg": 0}, {"$arg": 5}], "kwargs": {}}, [torch.zeros(2)]),  # no tensor 5
        (["ex3_scaling", "scale_scores"], {"args": [{"$arg": 0}, [1, 2]], "kwargs": {}}, [torch.zeros(2)]),  # a list
        (["ex0_weighted_sum", "weighted_sum"], "args", [torch.zeros(2)]),
    ],
)
def test_the_grading_process_answers_no_question_bigger_than_a_check(key, template, tensors):
    """Whatever a child asks, the grading process allocates no more than a check would."""
    reply = earlier.answer(REFERENCES, "ex7_gpt", {"earlier": key, "template": template, "tensors": tensors, "grad": None})
    assert set(reply) == {"error"}, reply


def test_without_references_later_exercises_import_the_students_own(installed):
    """The student edition has no solutions to answer from: ex0..ex4 are the
    student's files; the classes are still the grader's."""
    before = {e: sys.modules.get(e) for e in FUNCTION_EXERCISES}  # another test may have imported a student's own
    installed("ex7_gpt", answered=False)
    assert {e: sys.modules.get(e) for e in FUNCTION_EXERCISES} == before
    assert sys.modules["ex5_head"].Head is standins.Head and sys.modules["ex6_block"].Block is standins.Block


def _solution_lines() -> set[str]:
    lines = set()
    for ex in IDS:
        for region in solution_regions(Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8")):
            lines |= {line.split("#")[0].strip() for line in region.splitlines()}
    return {line for line in lines if len(line) >= 12}


def _solution(ex: str):
    return REFERENCES[ex].namespace


def _cases():
    """(exercise, function, args): shapes with and without batch dims, sizes 1 and above 8, float32 and float64, large scores."""
    g = torch.Generator().manual_seed(19)

    def r(*shape, dtype=torch.float32, scale=1.0):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)

    out = []
    for dtype in (torch.float32, torch.float64):
        out += [
            ("ex0_weighted_sum", "weighted_sum", (r(5, dtype=dtype), r(5, 3, dtype=dtype))),
            ("ex0_weighted_sum", "weighted_sum", (r(2, 4, 6, dtype=dtype, scale=1000), r(2, 4, 6, 3, dtype=dtype))),
            ("ex0_weighted_sum", "weighted_sum", (r(3, 1, dtype=dtype), r(3, 1, 2, dtype=dtype))),
            ("ex1_averaging", "average_past", (r(2, 11, 3, dtype=dtype),)),
            ("ex1_averaging", "average_past", (r(1, 1, 1, dtype=dtype),)),
            ("ex2_scores", "attention_scores", (r(3, 9, 4, dtype=dtype), r(3, 9, 4, dtype=dtype))),
            ("ex2_scores", "attention_scores", (r(1, 1, 1, dtype=dtype), r(1, 1, 1, dtype=dtype))),
            ("ex3_scaling", "scale_scores", (r(2, 5, 5, dtype=dtype), 16)),
            ("ex3_scaling", "scale_scores", (r(7, dtype=dtype), 3)),
            ("ex4_masking", "causal_mask", (r(4, 4, dtype=dtype),)),
            ("ex4_masking", "causal_mask", (r(2, 3, 12, 12, dtype=dtype),)),
            ("ex4_masking", "causal_weights", (r(1, 1, dtype=dtype),)),
            ("ex4_masking", "causal_weights", (r(2, 10, 10, dtype=dtype, scale=1000),)),
        ]
    out += [("ex1_averaging", "averaging_matrix", (T,)) for T in (1, 3, 12)]
    return out


@pytest.mark.parametrize("ex, name, args", _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_function_stand_ins_keep_the_docstrings_promises(ex, name, args, installed):
    """The stand-in's answer is the solution's: shape, dtype, -inf where the
    solution has it, finite where it is; the inputs stay as they were."""
    installed("ex7_gpt")
    copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    got = getattr(sys.modules[ex], name)(*args)
    want = getattr(_solution(ex), name)(*copies)
    for a, c in zip(args, copies):
        if isinstance(a, torch.Tensor):
            assert torch.equal(a, c), "the input was changed"
    assert type(got) is torch.Tensor and got.shape == want.shape and got.dtype == want.dtype
    assert torch.equal(torch.isinf(got), torch.isinf(want)) and torch.isfinite(got).sum() == torch.isfinite(want).sum()
    finite = torch.isfinite(want)
    tol = 1e-7 if got.dtype == torch.float64 else 1e-5  # ex1's solution builds its matrix in float32 whatever x is
    assert torch.allclose(got[finite], want[finite], rtol=tol, atol=tol)


@pytest.mark.parametrize("ex, name, args", [c for c in _cases() if any(isinstance(a, torch.Tensor) and a.is_floating_point() for a in c[2])], ids=lambda v: v if isinstance(v, str) else "")
def test_gradients_flow_through_the_answers(ex, name, args, installed):
    """A later exercise trains through an earlier function: the backward asks
    the grading process too, and gets the solution's gradient."""
    installed("ex7_gpt")
    leaves = [a.clone().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args]
    copies = [a.clone().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args]
    got = getattr(sys.modules[ex], name)(*leaves)
    want = getattr(_solution(ex), name)(*copies)
    weight = torch.randn(want.shape, generator=torch.Generator().manual_seed(3), dtype=want.dtype)
    finite = torch.isfinite(want)
    (torch.where(finite, got, 0) * weight).sum().backward()
    (torch.where(finite, want, 0) * weight).sum().backward()
    for a, b in zip(leaves, copies):
        if isinstance(a, torch.Tensor):
            assert (a.grad is None) == (b.grad is None)
            if a.grad is not None:
                assert torch.allclose(a.grad, b.grad, rtol=1e-5, atol=1e-6)
