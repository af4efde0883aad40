"""ATTENTION_TIME_SCALE (grader/child/limits.py): the project's tests shorten the
time limits with it (tests/sandbox/test_attacks.py) and nothing else changes. It
shrinks every default time limit and nothing else, never an explicit one (a
child rebuilds its limits from the numbers in its spec), only within (0, 1],
and the grading process reads it, not the child."""

import json
import re

import pytest
from conftest import make_submission, run_cli

from grader.child import limits as limits_mod
from grader.child.limits import Limits

TIMES = ("import_seconds", "request_seconds", "exercise_seconds")


def test_the_scale_shrinks_every_time_limit_and_nothing_else(monkeypatch):
    monkeypatch.delenv(limits_mod.TIME_SCALE, raising=False)
    real = Limits()
    monkeypatch.setenv(limits_mod.TIME_SCALE, "0.25")
    scaled = Limits()
    for name in TIMES:
        assert getattr(scaled, name) == pytest.approx(getattr(real, name) * 0.25), name
    assert isinstance(scaled.cpu_seconds, int) and scaled.cpu_seconds == real.cpu_seconds // 4  # RLIMIT_CPU: whole seconds
    untouched = {name: value for name, value in real.to_dict().items() if name not in TIMES + ("cpu_seconds",)}
    assert untouched and {name: getattr(scaled, name) for name in untouched} == untouched
    # What a child is given it rebuilds as it is, not scaled again; a limit
    # set in code is taken as given.
    assert Limits(**scaled.to_dict()) == scaled
    assert Limits(import_seconds=7.0).import_seconds == 7.0
    # A tiny scale leaves the CPU limit a whole second, not 0 (no limit).
    monkeypatch.setenv(limits_mod.TIME_SCALE, "0.001")
    assert Limits().cpu_seconds == 1


@pytest.mark.parametrize("value", ["1", " 1.0 ", ""])
def test_one_or_unset_is_the_real_limits(monkeypatch, value):
    monkeypatch.delenv(limits_mod.TIME_SCALE, raising=False)
    real = Limits()
    monkeypatch.setenv(limits_mod.TIME_SCALE, value)
    assert Limits() == real


@pytest.mark.parametrize("value", ["0", "-0.5", "1.5", "20", "inf", "nan", "half", "0,5"])
def test_a_scale_outside_0_to_1_is_refused(monkeypatch, value):
    """Nothing above 1: it can only shorten the limits."""
    monkeypatch.setenv(limits_mod.TIME_SCALE, value)
    with pytest.raises(ValueError, match="^" + re.escape(f"ATTENTION_TIME_SCALE={value!r}: must be a number in (0, 1]")):
        Limits()


def test_the_grader_refuses_to_start_with_a_bad_scale(monkeypatch, tmp_path):
    folder = make_submission(tmp_path / "sub")
    json_path = tmp_path / "results.json"
    monkeypatch.setenv(limits_mod.TIME_SCALE, "2")
    proc = run_cli("grade", folder, "--json", str(json_path), "--sandbox", "off", "--only", "ex0_weighted_sum", timeout=300)
    assert proc.returncode == 2  # a usage error, said in one line, not a traceback
    assert "ATTENTION_TIME_SCALE='2': must be a number in (0, 1]" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not json_path.exists()


# Sleeps through each call: longer than the scaled request limit, well within
# the real one. It reports instead if the variable reached the child.
SLEEPER = """
import os
import time

import torch

SEEN = os.environ.get("ATTENTION_TIME_SCALE")
os.environ["ATTENTION_TIME_SCALE"] = "1"  # too late, and not the grader's: no use


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if SEEN is not None:
        raise RuntimeError(f"the child saw ATTENTION_TIME_SCALE={SEEN}")
    time.sleep(3)
    weights = torch.softmax(scores, dim=-1)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)
"""


def test_the_grader_applies_the_scale_and_the_child_never_sees_it(monkeypatch, tmp_path):
    """Through the command line, as test_attacks.py uses it: 1 s per call
    instead of 10, 6 s for the exercise instead of 60. The child's
    environment is the grader's making, without the variable; setting it
    there changes nothing."""
    folder = make_submission(tmp_path / "sub", {"ex0_weighted_sum": SLEEPER})
    json_path = tmp_path / "results.json"
    monkeypatch.setenv(limits_mod.TIME_SCALE, "0.1")
    scaled = Limits()
    assert scaled.request_seconds == pytest.approx(1.0) and scaled.exercise_seconds == pytest.approx(6.0)
    proc = run_cli("grade", folder, "--json", str(json_path), "--sandbox", "off", "--only", "ex0_weighted_sum", timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tests = json.loads(json_path.read_text(encoding="utf-8"))["tests"]
    assert tests and all(t["status"] == "failed" and t["score"] == 0 for t in tests), tests
    said = (f"no answer within {scaled.request_seconds:.0f} s", f"used up its {scaled.exercise_seconds:.0f} s of time")
    for t in tests:
        assert "the child saw" not in t["output"], t["output"]
        assert any(s in t["output"] for s in said), t["output"]
    assert said[0] in tests[0]["output"]
