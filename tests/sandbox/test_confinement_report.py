"""What could not be done to confine submission code is never silent
(confine.confine() reports it; the zygote asks a child it forks at its start):
with ``--sandbox require`` the grader refuses to grade, otherwise it says so
once on stderr and in results.json's ``extra_data.unconfined``, and grades.

A machine where the seccomp filter cannot be installed is made two ways
(tests/support/seccomp_jail.py): a filter of its own that refuses seccomp, and
filters stacked to the kernel's limit on their length."""

import json
import os
import platform
import subprocess
import sys

import pytest
from conftest import ROOT, make_submission

from grader.engine import sandbox as sandbox_mod

JAIL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support", "seccomp_jail.py")
WAYS = ["refuse", "full"]

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64" or not sys.platform.startswith("linux"), reason="the jail is written for Linux on x86_64")


def _grade(way: str, folder, *options) -> tuple[subprocess.CompletedProcess, dict | None]:
    out = str(folder) + "-results.json"
    command = [sys.executable, JAIL, way, "--", sys.executable, "-m", "grader", "grade", str(folder), "--only", "ex0_weighted_sum", "--json", out, *options]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": ROOT})
    results = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            results = json.load(f)
    return proc, results


@pytest.mark.parametrize("way", WAYS)
def test_require_refuses_to_grade(way, tmp_path):
    if not sandbox_mod.available():
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("CI must run this with the sandbox: bubblewrap is missing")
        pytest.skip("no sandbox can be made here")
    proc, results = _grade(way, make_submission(tmp_path / "sub"), "--sandbox", "require")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "cannot be fully confined" in proc.stderr and "seccomp" in proc.stderr
    assert results is None  # nothing was graded


@pytest.mark.parametrize("mode", ["off", "auto"])
@pytest.mark.parametrize("way", WAYS)
def test_otherwise_said_once_and_recorded(way, mode, tmp_path):
    proc, results = _grade(way, make_submission(tmp_path / "sub"), "--sandbox", mode)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.count("not fully confined") == 1, proc.stderr
    assert any("seccomp" in p for p in results["extra_data"]["unconfined"]), results["extra_data"]
    assert results["score"] == 10  # the solution still earns its points


def test_a_machine_that_confines_says_nothing(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", make_submission(tmp_path / "sub"), "--only", "ex0_weighted_sum", "--json", str(tmp_path / "r.json"), "--sandbox", "off"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    assert proc.returncode == 0, proc.stderr
    unconfined = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["extra_data"].get("unconfined", [])
    assert not [p for p in unconfined if "seccomp" in p]
