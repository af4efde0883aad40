"""The first ``tox -e grade`` is seen: tox.ini's grade environment installs
through tox_install/pip_install.py, which says on the terminal what it installs
and how long it takes, warns on Linux that PyPI's torch is the CUDA build
unless PyTorch's CPU index is set, and gives pip the terminal for its
progress bars. Without a terminal pip runs as tox would run it."""

import configparser
import os
import shlex
import subprocess
import sys

from tox_install import pip_install

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPS = ["torch==2.13.0", "numpy>=1.26", "pytest>=8"]


def test_the_grade_environment_installs_through_it():
    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(ROOT, "tox.ini"), encoding="utf-8")
    argv = shlex.split(config["testenv:grade"]["install_command"])
    assert argv[:2] == ["python", "-I"] and argv[2] == "{tox_root}/tox_install/pip_install.py", argv
    assert argv[3:] == ["{opts}", "{packages}"]
    # -I: no script folder on sys.path, nothing installed yet: the standard library only.
    source = open(os.path.join(ROOT, "tox_install", "pip_install.py"), encoding="utf-8").read()
    assert "from grader" not in source and "import torch" not in source


def test_it_says_what_it_installs_and_how_long():
    env = {"VIRTUAL_ENV": "/home/s/course/.tox/grade", "PIP_EXTRA_INDEX_URL": pip_install.CPU_INDEX}
    said = pip_install.announcement(DEPS, env, "linux")
    assert "torch==2.13.0, numpy>=1.26, pytest>=8" in said and ".tox/grade" in said
    assert "a few minutes" in said and "几分钟" in said and "later runs take seconds" in said
    assert "CUDA" not in said  # the CPU index is set


def test_it_warns_of_the_cuda_build_on_linux_only():
    for env in ({}, {"PIP_EXTRA_INDEX_URL": "https://pypi.org/simple"}, {"TOX_ENV_DIR": "/x/.tox/write"}):
        said = pip_install.announcement(DEPS, env, "linux")
        assert "CUDA" in said and f"PIP_EXTRA_INDEX_URL={pip_install.CPU_INDEX} tox -e" in said, env
        assert "Ctrl-C" in said
    assert "tox -e write" in pip_install.announcement(DEPS, {"TOX_ENV_DIR": "/x/.tox/write"}, "linux")
    assert "CUDA" not in pip_install.announcement(DEPS, {"PIP_INDEX_URL": pip_install.CPU_INDEX}, "linux")
    for platform in ("darwin", "win32"):
        assert "CUDA" not in pip_install.announcement(DEPS, {}, platform)
    # Without torch (another environment's extras), neither the size of PyTorch nor the CUDA note.
    said = pip_install.announcement(["tqdm>=4.60"], {}, "linux")
    assert "CUDA" not in said and "PyTorch" not in said and "tqdm>=4.60" in said


def test_pip_runs_on_the_terminal_and_its_status_is_tox_s(tmp_path):
    """pip's own output (here, its error for a package that is nowhere) goes to
    the terminal, after the announcement; its exit status is the command's."""
    tty = open(tmp_path / "tty", "w", encoding="utf-8")
    code = pip_install.main(["--no-index", "--find-links", str(tmp_path), "no-such-package-here"], tty=tty)
    said = (tmp_path / "tty").read_text(encoding="utf-8")
    assert code != 0
    assert said.index("no-such-package-here") < said.index("ERROR"), said  # announcement, then pip
    assert "No matching distribution" in said or "Could not find a version" in said, said


def test_without_a_terminal_pip_is_tox_s_to_show(tmp_path):
    """No controlling terminal (a new session, as in CI): pip's output stays on
    the command's own stdout and stderr, which tox keeps."""
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tox_install", "pip_install.py"), "--no-index", "--find-links", str(tmp_path), "no-such-package-here"],
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "no-such-package-here" in proc.stdout + proc.stderr
    assert "first run only" not in proc.stdout + proc.stderr  # the announcement is for a terminal
