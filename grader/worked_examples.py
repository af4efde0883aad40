"""The stubs' worked examples, run as checks.

Every example in a stub's docstring (``>>>`` lines and the value they print)
is a public check worth a point: a student reads it as a promise, so it is run
exactly as written, in the student's module, and its value compared with the
reference's (the same text run in the solution). ``doctest``'s parser reads
the examples; each value shown is one comparison, with the statements before
it in the same docstring (``scores = ...``) run first.

A check holds its docstring's example as text (``EXAMPLE = '''...'''``):
``tests/test_worked_examples.py`` fails when an example of a stub has no
check that holds it, or when the reference does not print what the
docstring shows.
"""
import doctest
import textwrap

import torch

from grader.checking import CheckFailed, expect_close, fmt
from grader.text import t


def examples(block: str) -> list[tuple[list[str], str]]:
    """The examples of ``block`` (a docstring's, or part of one): for each
    value shown, (the statements to run, the last an expression; what the
    docstring shows)."""
    source, out = [], []
    for example in doctest.DocTestParser().get_examples(textwrap.dedent(block)):
        source.append(example.source.strip())
        if example.want:
            out.append((list(source), example.want.strip()))
    return out


def expect_example(sub, ref, block: str, diagnoses: dict | None = None, check_dtype: bool = True) -> None:
    """Run each example of ``block`` in the submission and in the reference,
    and fail unless every value the docstring shows comes out the same.
    ``diagnoses``: by the index of a shown value, what ``expect_close`` takes;
    ``check_dtype=False`` where the stub lets the dtype be any float
    (``averaging_matrix``): the values are compared, not the dtype."""
    for i, (source, shown) in enumerate(examples(block)):
        written = "\n".join(">>> " + line for line in source)
        what = t(f"文档里的例子\n{written}\n应当显示 {shown}", f"the docstring's example\n{written}\nwhich shows {shown}")
        _expect_same(sub.example(source), ref.example(source), what, shown, (diagnoses or {}).get(i, ()), check_dtype)


def _expect_same(got, want, what, shown: str, diagnoses, check_dtype: bool = True) -> None:
    if isinstance(want, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            raise CheckFailed(what, repr(got), shown, difference=t("结果不是张量", "the result is not a tensor"))
        expect_close(got, want, what=what, diagnoses=diagnoses, check_dtype=check_dtype)
        return
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        for g, w in zip(got, want):
            _expect_same(g, w, what, shown, (), check_dtype)
        return
    if got != want or type(got) is not type(want):
        raise CheckFailed(what, fmt(got) if isinstance(got, torch.Tensor) else repr(got), shown, difference=t("显示的值和文档里的不一样", "the value shown differs from the docstring's"))
