"""The stubs: made from the solutions, importable, unfinished in exactly the
marked places, and documented in Chinese then English."""

import ast
import doctest
import importlib.util
import os
import re
import sys

import pytest
import torch
from conftest import EXERCISES, SOLUTIONS

from grader.authoring.regions import BEGIN
from grader.exercises import IDS
from grader.teacher import stubs


def load(folder, ex):
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(f"_{os.path.basename(folder)}_{ex}", os.path.join(folder, ex + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(folder)


def test_stubs_are_generated_from_the_solutions():
    assert stubs.main(["--check"]) == 0, "exercises/ is out of date: run python -m grader.teacher.stubs"


@pytest.mark.parametrize("ex", IDS)
def test_stub_has_the_solutions_names(ex):
    sol, stub = load(SOLUTIONS, ex), load(EXERCISES, ex)

    def public(m):
        return {n for n, v in vars(m).items() if not n.startswith("_") and getattr(v, "__module__", None) == m.__name__}

    assert public(sol) == public(stub) and public(stub)


@pytest.mark.parametrize("ex", IDS)
def test_every_student_region_raises_not_implemented_naming_the_exercise(ex):
    source = open(os.path.join(EXERCISES, ex + ".py"), encoding="utf-8").read()
    raises = re.findall(r'raise NotImplementedError\("([^"]*)"\)', source)
    regions = open(os.path.join(SOLUTIONS, ex + ".py"), encoding="utf-8").read().count(BEGIN)
    assert len(raises) == regions > 0
    assert all(r.startswith(ex + ":") and "尚未完成" in r and "not implemented yet" in r for r in raises)
    assert source.count(f"TODO({ex})") == regions


@pytest.mark.parametrize("ex", IDS)
def test_docstrings_are_chinese_then_english(ex):
    tree = ast.parse(open(os.path.join(EXERCISES, ex + ".py"), encoding="utf-8").read())
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    for node in nodes:
        if isinstance(node, ast.FunctionDef) and node.name in ("__init__", "forward"):
            continue  # documented on the class
        doc = ast.get_docstring(node)
        assert doc, f"{ex}: {getattr(node, 'name', 'module')} has no docstring"
        zh = re.search(r"[\u4e00-\u9fff]", doc)
        en = re.search(r"[A-Za-z]{4,} [a-z]{2,} [a-z]{2,}", doc)
        assert zh and en and zh.start() < en.start(), f"{ex}: {getattr(node, 'name', 'module')}"


def test_stub_generation_marks_and_errors():
    src = "def f(x):\n    '''doc'''\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n"
    out = stubs.make_stub(src, "exZ")
    assert "return x" not in out and 'raise NotImplementedError("exZ: f' in out
    with pytest.raises(ValueError):
        stubs.make_stub("    # BEGIN SOLUTION\n", "exZ")
    with pytest.raises(ValueError):
        stubs.make_stub("    # END SOLUTION\n", "exZ")


@pytest.mark.parametrize("ex", IDS)
def test_solution_docstring_examples_hold(ex):
    """The numbers in the docstrings (e.g. [0.845, 0.670]) are what the code computes."""
    mod = load(SOLUTIONS, ex)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(mod, globs={"torch": torch, **vars(mod)})
    assert any(t.examples for t in tests)
    for t in tests:
        runner.run(t)
    assert runner.failures == 0
