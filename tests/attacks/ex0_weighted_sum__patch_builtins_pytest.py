"""Attack: patch pytest, the grader's check helpers and builtins in the child.

pytest.approx matches anything, pytest.fail and the grader's expect helpers do
nothing, AssertionError is swapped for a harmless class and
``builtins.__import__`` hands out the patched modules to anyone who imports
them later. All of it happens in the child; the checks run in the grading
process: 0 points.
"""
import builtins
import sys
import types

import pytest
import torch


class _Anything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def _nothing(*args, **kwargs):
    return None


pytest.approx = lambda *args, **kwargs: _Anything()
pytest.fail = _nothing
builtins.AssertionError = type("AssertionError", (Exception,), {})

_fake_checking = types.ModuleType("grader.authoring.checking")
_fake_checking.expect = _nothing
_fake_checking.expect_close = _nothing
sys.modules["grader.authoring.checking"] = _fake_checking
_real_import = builtins.__import__


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if name in ("grader.authoring.checking", "checking"):
        return _fake_checking
    module = _real_import(name, globals, locals, fromlist, level)
    if name == "pytest":
        module.approx = pytest.approx
        module.fail = _nothing
    return module


builtins.__import__ = _import


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
