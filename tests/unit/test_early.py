"""A fixture made early (tests/support/early.py) is made in the background
with the session's environment, whatever a test running meanwhile sets;
its error reaches the fixture that asks for it; where nothing started it,
it is made there and then."""

import threading

import pytest
from early import Early, environ


def test_made_in_the_background_with_the_environment_it_was_started_with(monkeypatch, tmp_path):
    monkeypatch.setenv("EARLY_PROBE", "the session's")
    gate = threading.Event()

    def make(folder, background):
        assert gate.wait(30)
        return environ()["EARLY_PROBE"], folder, background

    made = Early(make)
    made.start(tmp_path / "early")
    monkeypatch.setenv("EARLY_PROBE", "a test's, meanwhile")
    gate.set()
    assert made.result(tmp_path / "now") == ("the session's", tmp_path / "early", True)
    assert (tmp_path / "early").is_dir()
    assert environ()["EARLY_PROBE"] == "a test's, meanwhile"  # outside its thread: the process's


def test_it_waits_for_what_it_comes_after(tmp_path):
    order = []
    gate = threading.Event()

    def after():
        assert gate.wait(30)
        order.append("after")

    made = Early(lambda folder, background: order.append("made") or len(order))
    made.start(tmp_path / "early", after=after)
    gate.set()
    assert made.result(tmp_path) == 2 and order == ["after", "made"]


def test_its_error_is_raised_in_the_fixture(tmp_path):
    def make(folder, background):
        raise RuntimeError("the build failed")

    made = Early(make)
    made.start(tmp_path / "early")
    with pytest.raises(RuntimeError, match="the build failed"):
        made.result(tmp_path)


def test_not_started_it_is_made_now(tmp_path):
    assert Early(lambda folder, background: (folder, background)).result(tmp_path) == (tmp_path, False)
