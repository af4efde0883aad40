"""The grader's modules for earlier exercises (``grader/standins.py``,
``install_siblings``): while exercise N is graded, every earlier exercise's
module name means the grader's module, offering what the table says that
exercise defines; the function stand-ins give the answers the docstrings
promise, reach only the children of later exercises, and are no solution's
code. Graded behaviour is in tests/test_catalogue.py (files ``# submitted
with:`` wrong earlier files); here the modules themselves.
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

from grader import standins
from grader.exercises import BY_ID, IDS
from grader.exercises import EXERCISES as TABLE
from grader.stubs import solution_regions

FUNCTION_EXERCISES = [e.id for e in TABLE if any(n not in standins.BY_CONTRACT for n in e.defines) and e.id != IDS[-1]]


def public_names(path: str) -> list[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]


@pytest.mark.parametrize("ex", IDS)
def test_defines_are_the_stubs_names(ex):
    """The table's ``defines`` are the functions and classes the stub asks for, in its order."""
    assert list(BY_ID[ex].defines) == public_names(os.path.join(EXERCISES, ex + ".py"))


@pytest.fixture
def installed():
    saved_all = []

    def install(exercise_id, sources=None):
        sources = standins.function_sources(exercise_id) if sources is None else sources
        saved_all.append(standins.install_siblings(exercise_id, sources))
        return sources

    yield install
    for saved in reversed(saved_all):
        standins.restore_siblings(saved)


@pytest.mark.parametrize("ex", IDS)
def test_every_earlier_module_is_the_graders(ex, installed):
    """Every earlier exercise, and only those, by every way of importing."""
    installed(ex)
    position = IDS.index(ex)
    for earlier in TABLE[:position]:
        mod = sys.modules[earlier.id]
        assert mod is importlib.import_module(earlier.id) and mod.__name__ == earlier.id
        assert "grader's stand-in" in mod.__file__
        offered = {k for k in vars(mod) if not k.startswith("__")}
        assert offered == set(earlier.defines) | {"torch"}, earlier.id
        for name in earlier.defines:
            got = getattr(mod, name)
            if name in standins.BY_CONTRACT:
                assert got is standins.BY_CONTRACT[name]
            else:
                assert got.__module__ == earlier.id and callable(got)
    for later in IDS[position:]:
        assert later not in sys.modules or "grader's stand-in" not in getattr(sys.modules[later], "__file__", "")


def test_a_name_the_exercise_does_not_define_is_refused_clearly(installed):
    installed("ex5_head")
    namespace: dict = {}
    with pytest.raises(ImportError) as info:
        exec("from ex4_masking import Head", namespace)
    assert "the grader's stand-in, which offers causal_mask, causal_weights" in str(info.value)


@pytest.mark.parametrize("ex", IDS)
def test_a_child_gets_only_earlier_function_stand_ins(ex):
    """What the grading process hands the child of ``ex``: no stand-in of
    ``ex`` itself or of a later exercise (it would answer that exercise)."""
    sources = standins.function_sources(ex)
    position = IDS.index(ex)
    assert set(sources) == {e for e in FUNCTION_EXERCISES if IDS.index(e) < position}
    text = "\n".join(sources.values())
    for later in TABLE[position:]:
        for name in later.defines:
            assert f"def {name}(" not in text, (ex, name)


def test_the_function_stand_ins_are_where_no_child_and_no_student_reads_them():
    """In checks/hidden: the student edition has nothing of it
    (test_release_has_what_students_need_and_nothing_else), the sandbox shows
    grader/ and not it; the zygote never reads it (a child gets what the
    grading process sends it)."""
    path = Path(standins.FUNCTIONS_FILE).resolve()
    assert path.parent == Path(ROOT, "checks", "hidden").resolve() and path.is_file()
    assert not str(path).startswith(str(Path(ROOT, "grader").resolve()) + os.sep)


def test_without_the_file_later_exercises_import_the_students_own(tmp_path, installed):
    """The student edition: no function stand-ins, so ex0..ex4 are the
    student's files; the classes are still the grader's."""
    assert standins.function_sources("ex7_gpt", str(tmp_path / "absent.py")) == {}
    installed("ex7_gpt", {})
    assert not [e for e in FUNCTION_EXERCISES if e in sys.modules]
    assert sys.modules["ex5_head"].Head is standins.Head and sys.modules["ex6_block"].Block is standins.Block


def _solution_lines() -> set[str]:
    lines = set()
    for ex in IDS:
        for region in solution_regions(Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8")):
            lines |= {line.split("#")[0].strip() for line in region.splitlines()}
    return {line for line in lines if len(line) >= 12}


def test_function_stand_ins_are_not_solution_code(installed):
    """No code line of a solution region, and getsource() of a stand-in
    reads nothing: its code was compiled from text under a name that is no file."""
    text = Path(standins.FUNCTIONS_FILE).read_text(encoding="utf-8")
    ours = {line.split("#")[0].strip() for line in text.splitlines()}
    assert not ours & _solution_lines()
    installed("ex7_gpt")
    for ex in FUNCTION_EXERCISES:
        mod = sys.modules[ex]
        with pytest.raises((OSError, TypeError)):
            inspect.getsource(mod)
        for name in BY_ID[ex].defines:
            fn = getattr(mod, name)
            assert fn.__code__.co_filename == f"<the grader's stand-in for {ex}>"
            with pytest.raises(OSError):
                inspect.getsource(fn)
            assert set(fn.__globals__) <= {"__name__", "__builtins__", "math", "torch", *BY_ID[ex].defines}


def _solution(ex: str):
    mod = type(sys)(f"solution_{ex}")
    exec(compile(Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8"), ex, "exec"), mod.__dict__)
    return mod


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
