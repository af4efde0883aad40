"""The stubs' worked examples are checks (issue 38, part 2).

(a) every example in a stub's docstring (its ``>>>`` lines and the value they
    show) is held, word for word, by a public check of its exercise: a new
    example without a check fails here;
(b) the reference prints exactly what the docstring shows, so every example
    is true;
(c) the check fails code that gets an example wrong and passes everything
    else, where no other check looks (the catalogue's
    ``ex4_masking__future_found_from_the_values``: tests/grading/test_catalogue.py
    grades it; here the example alone, on the reference and on that file).
"""

import ast
import contextlib
import doctest
import importlib.util
import io
from pathlib import Path

import pytest
import torch

from grader.authoring.worked_examples import examples
from grader.exercises import IDS

ROOT = Path(__file__).resolve().parents[2]


def docstring_examples(exercise: str) -> list[tuple[str, list[str], str]]:
    """(owner, statements, shown) for every value a docstring of the stub shows."""
    tree = ast.parse((ROOT / "exercises" / f"{exercise}.py").read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=True) or ""
            out += [(node.name, source, shown) for source, shown in examples(doc)]
    return out


def check_examples(exercise: str) -> list[tuple[list[str], str]]:
    """The examples the public checks of ``exercise`` hold as text."""
    tree = ast.parse((ROOT / "checks" / "public" / f"test_{exercise}.py").read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) and ">>>" in node.value.value:
            out += examples(node.value.value)
    return out


ALL = [(ex, owner, source, shown) for ex in IDS for owner, source, shown in docstring_examples(ex)]


def test_every_stub_has_examples_and_they_are_found():
    # The reader finds them at all: every stub shows at least one example.
    assert {ex for ex, *_ in ALL} == set(IDS)


@pytest.mark.parametrize("exercise, owner, source, shown", ALL, ids=[f"{ex}-{owner}-{i}" for i, (ex, owner, *_) in enumerate(ALL)])
def test_every_docstring_example_has_a_check(exercise, owner, source, shown):
    assert (source, shown) in check_examples(exercise), f"{exercise}: the example of {owner} showing {shown!r} has no public check holding it"


def _reference(exercise: str):
    from grader.child import standins

    spec = importlib.util.spec_from_file_location(f"reference_{exercise}", ROOT / "solutions" / f"{exercise}.py")
    module = importlib.util.module_from_spec(spec)
    saved = standins.install_siblings(exercise)
    try:
        spec.loader.exec_module(module)
    finally:
        standins.restore_siblings(saved)
    return module


@pytest.mark.parametrize("exercise, owner, source, shown", ALL, ids=[f"{ex}-{owner}-{i}" for i, (ex, owner, *_) in enumerate(ALL)])
def test_the_reference_shows_what_the_docstring_does(exercise, owner, source, shown):
    """Run as doctest runs it: the printed value is the docstring's, character for character."""
    from grader.child import ops

    value = ops.execute(_reference(exercise), ops.example(source, [len(source) - 1]))["example"][0]
    names = dict(vars(_reference(exercise)))
    names["torch"] = torch
    torch.manual_seed(0)
    *statements, last = source
    for statement in statements:
        exec(statement, names)
    printed = repr(eval(last, names))
    assert doctest.OutputChecker().check_output(shown + "\n", printed + "\n", doctest.NORMALIZE_WHITESPACE), (printed, shown)
    assert value is not None


def test_an_example_run_on_code_that_gets_it_wrong_fails(tmp_path):
    """The example's request, answered by a file that finds the future from
    the values: its value is not the reference's (so the check fails it),
    while on random scores the two agree (so no other check would)."""
    from grader.child import ops

    wrong = tmp_path / "ex4_masking.py"
    wrong.write_text((ROOT / "tests" / "catalogue" / "wrong" / "ex4_masking__future_found_from_the_values.py").read_text(encoding="utf-8"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("wrong_ex4", wrong)
    module = importlib.util.module_from_spec(spec)
    with contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(module)
    reference = _reference("ex4_masking")
    ((source, _),) = [(s, shown) for ex, owner, s, shown in ALL if owner == "causal_weights"]
    got = ops.execute(module, ops.example(source, [0]))["example"][0]
    want = ops.execute(reference, ops.example(source, [0]))["example"][0]
    assert not torch.allclose(got, want)
    scores = torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(1))
    assert torch.allclose(module.causal_weights(scores), reference.causal_weights(scores))


def test_the_examples_are_read_as_doctest_reads_them():
    """grader/authoring/worked_examples.py reads examples without importing doctest (it
    would cost every grading process 6 ms): on every block of the stubs and
    the checks, and on a few made up, it reads what doctest's parser reads."""
    import textwrap

    def doctest_reads(block):
        source, out = [], []
        for example in doctest.DocTestParser().get_examples(textwrap.dedent(block)):
            source.append(example.source.strip())
            if example.want:
                out.append((list(source), example.want.strip()))
        return out

    blocks = [
        ">>> x = 1\n>>> f(x)\n3\n\n>>> g(\n...     x)\n[1,\n 2]\n>>> h()\n",
        "    >>> a = 2\n    >>> a\n    2\n    text after a blank\n",
    ]
    for path in [*(ROOT / "exercises").glob("*.py"), *(ROOT / "checks" / "public").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                blocks.append(ast.get_docstring(node, clean=True) or "")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value:
                blocks.append(node.value)
    assert sum(">>>" in b for b in blocks) > 20
    for block in blocks:
        assert examples(block) == doctest_reads(block), block
