"""The stubs' worked examples, run as checks.

Every example in a stub's docstring (``>>>`` lines and the value they print)
is a public check worth a point: a student reads it as a promise, so it is run
exactly as written, in the student's module, and its value compared with the
reference's (the same text run in the solution). Each value shown is one
comparison, with the statements before it in the same docstring
(``scores = ...``) run first.

Each check's examples run in the child in one round trip (``ops.example``:
the statements in order, in the module's namespace, with the values shown
sent back), beside any module runs the check asks with them (``also``).

A check holds its docstring's example as text (``EXAMPLE = '''...'''``):
``tests/unit/test_worked_examples.py`` fails when an example of a stub has no
check that holds it, or when the reference does not print what the
docstring shows.
"""

import textwrap

import torch

from grader.authoring.checking import CheckFailed, expect_close, fmt
from grader.text import t


def examples(block: str) -> list[tuple[list[str], str]]:
    """The examples of ``block`` (a docstring's, or part of one): for each
    value shown, (the statements to run, the last an expression; what the
    docstring shows). Read as doctest reads them (``>>>`` and ``...``
    lines, then the lines shown, up to a blank line or the next ``>>>``),
    without importing doctest, which would cost every grading process 6 ms
    (it brings pdb and unittest along)."""
    source: list[str] = []
    out: list[tuple[list[str], str]] = []
    shown: list[str] | None = None
    for line in textwrap.dedent(block).splitlines() + [""]:
        text = line.strip()
        if text.startswith(">>>") or (text.startswith("...") and shown is None and source):
            if shown:
                out.append((list(source), "\n".join(shown)))
            shown = None
            if text.startswith(">>>"):
                source.append(text[4:])
            else:
                source[-1] += "\n" + text[4:]
        elif text and source:
            shown = (shown or []) + [line.rstrip()]
        elif shown:
            out.append((list(source), "\n".join(shown)))
            shown = None
    return [(src, textwrap.dedent(text).strip()) for src, text in out]


def expect_example(sub, ref, block: str, diagnoses: dict | None = None, check_dtype: bool = True, also: tuple = ()) -> list:
    """Run each example of ``block`` in the submission and in the reference,
    and fail unless every value the docstring shows comes out the same.
    ``diagnoses``: by the index of a shown value, what ``expect_close`` takes;
    ``check_dtype=False`` where the stub lets the dtype be any float
    (``averaging_matrix``): the values are compared, not the dtype.

    ``also``: (class, ``ops.module`` arguments) of module runs asked in the
    same round trip (a module's example shows a shape; the check then holds
    its values with the grader's weights): their (got, want) ModuleRuns are
    returned, for the check to compare, once every example has passed."""
    from grader.authoring.domain_checks import unpack
    from grader.authoring.endpoints import module_run
    from grader.child import ops

    shown_values = examples(block)
    source = shown_values[-1][0]  # every statement up to the last value shown
    shown = [len(statements) - 1 for statements, _ in shown_values]
    requests = [ops.example(source, shown)] + [ops.module(cls, **kwargs) for cls, kwargs in also]
    got_all = sub.request(ops.batch(requests))["batch"]
    want_all = ref.request(ops.batch(requests))["batch"]
    got_values, want_values = unpack(got_all[0])["example"], want_all[0]["example"]
    for i, ((statements, text), got, want) in enumerate(zip(shown_values, got_values, want_values)):
        written = "\n".join(">>> " + line for line in statements)
        what = t(f"文档里的例子\n{written}\n应当显示 {text}", f"the docstring's example\n{written}\nwhich shows {text}")
        _expect_same(got, want, what, text, (diagnoses or {}).get(i, ()), check_dtype)
    runs = []
    for (cls, kwargs), got, want in zip(also, got_all[1:], want_all[1:]):
        runs.append((module_run(cls, kwargs, unpack(got)), module_run(cls, kwargs, want)))
    return runs


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
