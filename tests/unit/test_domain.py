"""The domain of every function and module (grader/authoring/domain.py), held to the
stubs' docstrings and to what it promises the checks (issue 38, part 1).

(a) every promise a stub's docstring makes about its inputs ("any shape",
    "``...`` any number of batch dims", "T may be 1", "longer than 8",
    "float64 in, float64 out", "may exceed block_size", a dropout argument)
    has an entry that covers it, and every entry's quoted promises are the
    docstring's words;
(b) ``draws`` covers every value of every axis, decided by the inputs
    secret alone (the same secret, the same draws; 0, a student's own run,
    always the same);
(c) the layouts are what they say, and cross the process boundary as they
    are (a view whose strides read outside its bytes is refused); backward
    through a view keeps it a view.
"""

import ast
import re
from pathlib import Path

import pytest
import torch

from grader.authoring import checking
from grader.authoring.domain import DOMAINS, LAYOUTS, draws, in_layout, layout_of
from grader.child import ops, protocol
from grader.exercises import IDS

ROOT = Path(__file__).resolve().parents[2]


def docstrings() -> dict[str, str]:
    """Each function's, class's and method's docstring in the stubs, by the
    domain's name for it (``GPT.generate``), white space made single."""
    out = {}
    for ex in IDS:
        tree = ast.parse((ROOT / "exercises" / f"{ex}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out[node.name] = " ".join((ast.get_docstring(node) or "").split())
                if isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if isinstance(item, ast.FunctionDef) and ast.get_docstring(item):
                            out[f"{node.name}.{item.name}"] = " ".join(ast.get_docstring(item).split())
                    init = next((i for i in node.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)
                    if init is not None and any(a.arg == "dropout" for a in init.args.args):
                        out[node.name] += " [takes dropout]"
    return out


DOCS = docstrings()


def _sizes(entry, name: str) -> tuple:
    return tuple(entry.sizes.get(name, ()))


# A promise, found by its words in a docstring, and what an entry needs to cover it.
PROMISES = [
    (r"any; the output has the input's shape|Shapes: any", "any shape: a 0-d tensor among the batch shapes, and every layout", lambda e: () in e.batch and set(e.layouts) == set(LAYOUTS)),
    (r"any number of batch dims, none included", "no batch dim, a batch of 1, and two batch dims", lambda e: {(), (1,)} <= set(e.batch) and any(len(b) == 2 for b in e.batch)),
    (r"T may be 1|1 included|T may be any|any T up to block_size|any length from 1", "T = 1", lambda e: 1 in _sizes(e, "T")),
    (r"longer than 8", "T longer than 8", lambda e: any(isinstance(v, int) and v > 8 for v in _sizes(e, "T"))),
    (r"any T up to block_size|from 1 to block_size", "T = block_size", lambda e: "block_size" in _sizes(e, "T")),
    (r"may exceed block_size", "T past block_size", lambda e: "past block_size" in _sizes(e, "T")),
    (r"float64 in, float64 out|float64 x gives a float64 output|dtype as for", "float64", lambda e: torch.float64 in e.dtypes),
    (r"\(\.\.\., T|\(B, T", "every memory layout of a tensor input", lambda e: set(e.layouts) == set(LAYOUTS)),
    # An input that must stay as it is: among the draws, one whose memory
    # several entries share (expanded), where writing into it fails outright.
    (r"return a new tensor|stay as they are|leaving the input unchanged", "an expanded input", lambda e: "expanded" in e.layouts),
    (r"\[takes dropout\]", "train mode (dropout > 0, backward) and eval mode", lambda e: set(e.modes) == {"train", "eval"}),
    (
        r"head_size",
        "head_size 1, squares and non-squares",
        lambda e: "head_size" not in e.sizes or ({1, 4} <= set(e.sizes["head_size"]) and any(round(v**0.5) ** 2 != v for v in e.sizes["head_size"])),
    ),
]


def test_every_function_and_module_of_the_stubs_has_a_domain():
    stubs = {name for name in DOCS if "." not in name} | {"GPT.generate"}
    assert stubs == set(DOMAINS), stubs ^ set(DOMAINS)


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_every_promise_has_an_entry_that_covers_it(name):
    doc, entry = DOCS[name], DOMAINS[name]
    found = [(words, needs) for pattern, words, needs in PROMISES if re.search(pattern, doc)]
    assert found or name == "averaging_matrix", f"{name}: no promise found in its docstring: the reader is broken"
    for pattern, words, needs in PROMISES:
        if re.search(pattern, doc):
            assert needs(entry), f"{name}'s docstring promises what needs {words}; its domain does not have it"


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_the_promises_an_entry_quotes_are_its_docstrings(name):
    for words in DOMAINS[name].promises:
        assert words in DOCS[name], f"{name}: {words!r} is not in its docstring"


def test_the_reader_finds_a_promise_without_an_entry():
    """The test above can fail: a docstring promising float64 to an entry without it."""
    from dataclasses import replace

    pattern, _, needs = next(p for p in PROMISES if p[1] == "float64")
    assert re.search(pattern, DOCS["causal_mask"])
    assert not needs(replace(DOMAINS["causal_mask"], dtypes=(torch.float32,)))


def _sizes_kw(name: str) -> dict:
    return {"n_embd": 6, "block_size": 5, "vocab_size": 7} if name[0].isupper() else {}


@pytest.mark.parametrize("name", sorted(DOMAINS))
@pytest.mark.parametrize("secret", [0, 11, 2026])
def test_draws_cover_every_value_of_every_axis(name, secret, monkeypatch):
    monkeypatch.setattr(checking, "_inputs_seed", secret)
    got = draws(name, 31, **_sizes_kw(name))
    entry = DOMAINS[name]
    assert {d.batch for d in got} == set(entry.batch)
    assert {d.dtype for d in got} == set(entry.dtypes)
    assert {d.layout for d in got} == set(entry.layouts)
    if entry.args:  # and every layout for real: not one a shape could not take (a transposed (1, 1))
        assert {layout_of(d.args[0]) for d in got} == set(entry.layouts)
    if entry.modes:
        assert {d.mode for d in got} == set(entry.modes)
    for size, values in entry.sizes.items():
        want = {5 if v == "block_size" else 8 if v == "past block_size" else v for v in values}
        assert {d.sizes[size] for d in got} == want, size


def test_the_secret_decides_every_draw(monkeypatch):
    def values(secret):
        monkeypatch.setattr(checking, "_inputs_seed", secret)
        return [[a.tolist() if isinstance(a, torch.Tensor) else a for a in d.args] + [d.layout, str(d.dtype)] for d in draws("weighted_sum", 3)]

    assert values(0) == values(0)  # a student's own run: always the same
    assert values(7) == values(7)  # --inputs-seed 7 repeats a grading
    assert values(7) != values(8) and values(7) != values(0)


def test_held_axes_stay_held():
    for d in draws("causal_mask", 4, n=6, T=1, dtype=torch.float64):
        assert d.sizes["T"] == 1 and d.dtype == torch.float64 and d.args[0].shape[-2:] == (1, 1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_layout_is_what_it_says_and_keeps_the_values(layout):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, generator=g)
    y = in_layout(x, layout, g)
    assert layout_of(y) == layout
    if layout == "expanded":
        assert torch.equal(y, x[:1].expand(2, 3, 4))
    else:
        assert torch.equal(y, x)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_view_crosses_the_boundary_as_it_is(layout):
    g = torch.Generator().manual_seed(1)
    x = in_layout(torch.randn(3, 4, 5, generator=g, dtype=torch.float64), layout, g)
    back = protocol.decode(protocol.encode({"x": x}, layouts=True)[8:])["x"]
    assert torch.equal(back, x) and back.stride() == x.stride() and layout_of(back) == layout
    # Without layouts (a child's answers), a copy.
    assert protocol.decode(protocol.encode({"x": x})[8:])["x"].is_contiguous()


# Views whose layout is odd in a way the walks above may not meet: one
# element with a stride of 2 (it counts as contiguous), expanded 0-d,
# transposed with a dim of 1, bfloat16 and complex ones.
ODD_VIEWS = {
    "one element, stride 2": lambda: torch.randn(1, 4)[:, 1::2][:, :1],
    "expanded 0-d": lambda: torch.tensor(3.0).expand(2, 3),
    "transposed with a dim of 1": lambda: torch.randn(1, 5).t(),
    "bfloat16 slice": lambda: torch.randn(3, 6).to(torch.bfloat16)[:, ::2],
    "complex conjugate": lambda: torch.randn(2, 3, dtype=torch.complex64).conj(),
}


@pytest.mark.parametrize("make", ODD_VIEWS.values(), ids=ODD_VIEWS.keys())
def test_odd_views_cross_the_boundary_and_hash_as_their_copies(make):
    from grader.engine.recorded import request_key

    x = make()
    copy = x.resolve_conj().clone(memory_format=torch.contiguous_format)
    for layouts in (False, True):
        back = protocol.decode(protocol.encode({"x": x}, layouts=layouts)[8:])["x"]
        assert torch.equal(back, copy)
    assert request_key({"args": [x]}) == request_key({"args": [copy]})
    assert request_key({"args": [x]}) != request_key({"args": [copy + 1]})


def test_a_view_that_reads_outside_its_bytes_is_refused():
    x = torch.arange(6.0).reshape(2, 3).t()
    data = bytearray(protocol.encode([x], layouts=True)[8:])
    text = data.decode("latin-1")
    forged = text.replace("[1,3]", "[9,9]", 1).encode("latin-1")  # strides that reach past the 6 floats
    assert forged != bytes(data)
    with pytest.raises(protocol.ProtocolError, match="outside"):
        protocol.decode(forged)


def test_backward_through_a_view_keeps_it_a_view():
    """The input a module is differentiated at is the same view (an expanded x
    written in place would fail in the student's code as it would in a model)."""
    x = torch.randn(1, 4, 3).expand(2, 4, 3)
    leaf = ops._input_to_differentiate(x)
    assert leaf.stride() == x.stride() and torch.equal(leaf, x)
    (leaf * torch.arange(3.0)).sum().backward()
    assert torch.equal(leaf.grad, torch.arange(3.0).expand(2, 4, 3))
