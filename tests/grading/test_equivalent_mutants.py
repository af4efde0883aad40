"""Every mutant listed as equivalent (checks/equivalent_mutants.toml) behaves
as the reference does on draws that span its exercise's domain
(grader/authoring/domain.py), so the list cannot hide a real gap (issue 38, part 3).

Each listed mutant and the solution answer the same requests in this process,
as the grader's reference does (``ops.execute``): every function on every
draw of its domain, back-propagated (value and the gradient of every
argument); every module built with a dropout > 0, on every draw (every
layout, dtype, length, eval and train mode with the same random numbers),
forward and backward (outputs, every parameter's gradient, the input's); and
generate, whose tokens must be the same. The test can fail: a mutant that is
not equivalent is told apart.
"""

import importlib.util

import pytest
import torch

from bench import mutation
from grader.authoring.contract import BLOCK_STANDINS, GPT_STANDINS, MHA_STANDINS, block_state, ffwd_state, gpt_state, head_state, mha_state
from grader.authoring.domain import DOMAINS, draws
from grader.child import ops, standins
from grader.exercises import BY_ID

SEEDS = (1, 2, 3)

# How each module is built and loaded: (init with a dropout > 0, state, standins, sizes for draws, tuple_out).
MODULES = {
    "Head": ([6, 3, 5, 0.25], lambda: head_state(6, 3, seed=1), (), dict(n_embd=6, block_size=5), False),
    "MultiHeadAttention": ([12, 2, 6, 0.25], lambda: mha_state(12, 2, seed=2), MHA_STANDINS, dict(n_embd=12, block_size=6), False),
    "FeedForward": ([6, 0.25], lambda: ffwd_state(6, seed=3), (), dict(n_embd=6), False),
    "Block": ([8, 2, 6, 0.25], lambda: block_state(8, seed=4), BLOCK_STANDINS, dict(n_embd=8, block_size=6), False),
    "GPT": ([9, 10, 2, 3, 6, 0.25], lambda: gpt_state(9, 10, 3, 6, seed=5), GPT_STANDINS, dict(block_size=6, vocab_size=9), True),
}


def load(exercise: str, source: str):
    """``source`` as the grader loads its reference: the earlier exercises are the grader's."""
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(f"mutant_{exercise}", loader=None))
    saved = standins.install_siblings(exercise)
    try:
        exec(compile(source, f"{exercise}.py", "exec"), module.__dict__)
    finally:
        standins.restore_siblings(saved)
    return module


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if a is None or b is None:  # no gradient is a gradient of 0
            other = a if b is None else b
            return not bool((other != 0).any())
        return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b, atol=1e-6, rtol=1e-5, equal_nan=True)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def requests(exercise: str):
    """Every request of the exercise's domain, over ``SEEDS``."""
    for name in BY_ID[exercise].defines + BY_ID[exercise].methods:
        entry = DOMAINS[name]
        for seed in SEEDS:
            if name[0].islower():
                for draw in draws(name, seed):
                    yield name, ops.call_backward(name, *draw.args)
            elif name == "GPT.generate":
                init, state, extra, sizes, _ = MODULES["GPT"]
                for draw in draws(name, seed, **sizes):
                    yield name, ops.module("GPT", init=init, state=state(), inputs=[[draw.args[0], 4]], standins=extra, method="generate", seed=seed)
            else:
                init, state, extra, sizes, tuple_out = MODULES[name]
                for draw in draws(name, seed, **sizes):
                    x = draw.args[0]
                    cast = {k: v.to(draw.dtype) for k, v in state().items()} if x.is_floating_point() else state()
                    dtype = draw.dtype if x.is_floating_point() and draw.dtype != torch.float32 else None
                    yield name, ops.module(name, init=init, state=cast, inputs=[x], train=draw.train, backward=True, standins=extra, tuple_out=tuple_out, dtype=dtype, seed=seed)
        assert entry is not None


def differences(exercise: str, source: str) -> list[str]:
    """The requests on which the module of ``source`` answers otherwise than the solution."""
    mutant = load(exercise, source)
    with open(f"{mutation.SOLUTIONS}/{exercise}.py", encoding="utf-8") as f:
        reference = load(exercise, f.read())
    out = []
    for name, request in requests(exercise):
        try:
            got = ops.execute(mutant, request)
        except Exception as exc:  # noqa: BLE001 - a mutant that raises where the solution does not differs
            out.append(f"{name}: raised {type(exc).__name__}: {exc}")
            continue
        want = ops.execute(reference, request)
        if not same(got, want):
            out.append(f"{name}: answers otherwise")
    return out


@pytest.fixture(scope="module")
def made():
    return {ex: mutation.make_mutants(ex) for ex in BY_ID}


def listed():
    return [(e["exercise"], mutation.entry_id(e)) for e in mutation.load_equivalents()]


@pytest.mark.parametrize("exercise, mutant_id", listed(), ids=[i.split("|", 2)[0] + "-" + str(n) for n, (_, i) in enumerate(listed())])
def test_a_listed_mutant_behaves_as_the_solution_on_the_domain(exercise, mutant_id, made):
    (mutant,) = [m for m in made[exercise].mutants if m.id == mutant_id]
    assert differences(exercise, mutant.source) == []


def test_a_mutant_that_is_not_equivalent_is_told_apart(made):
    """The check above can fail: a result detached (the gradient is cut) and a
    dropout left out (train mode differs) are caught on the domain's draws."""
    detached = [m for m in made["ex3_scaling"].mutants if m.operator == "torch/DetachResult"]
    assert detached and differences("ex3_scaling", detached[0].source)
    no_dropout = [m for m in made["ex5_head"].mutants if m.operator == "torch/RemoveDropout"]
    assert no_dropout and differences("ex5_head", no_dropout[0].source)
