"""Every first install is seen and gets the CPU build of torch on Linux:
tox.ini's environments install through tox_install/pip_install.py, which
says on the terminal what it installs and how long it takes, adds PyTorch's
CPU index on pip's command line where it can be reached (the user's own pip
settings, a mirror in pip.conf, stay in force), and gives pip the terminal
for its progress bars. Without a terminal pip runs as tox would run it."""

import configparser
import os
import shlex
import subprocess
import sys

from tox_install import pip_install

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPS = ["torch==2.13.0", "numpy>=1.26", "pytest>=8"]


def test_every_environment_installs_through_it():
    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(ROOT, "tox.ini"), encoding="utf-8")
    assert [s for s in config.sections() if s.startswith("testenv:") and "install_command" in config[s]] == []  # none of its own
    assert "ATTENTION_TORCH_INDEX" in config["testenv"]["pass_env"].split()
    argv = shlex.split(config["testenv"]["install_command"])
    assert argv[:2] == ["python", "-I"] and argv[2] == "{tox_root}/tox_install/pip_install.py", argv
    assert argv[3:] == ["{opts}", "{packages}"]
    # -I: no script folder on sys.path, nothing installed yet: the standard library only.
    source = open(os.path.join(ROOT, "tox_install", "pip_install.py"), encoding="utf-8").read()
    assert "from grader" not in source and "import torch" not in source


def test_it_says_what_it_installs_and_how_long():
    said = pip_install.announcement(DEPS, {"VIRTUAL_ENV": "/home/s/course/.tox/grade"})
    assert "torch==2.13.0, numpy>=1.26, pytest>=8" in said and ".tox/grade" in said
    assert "a few minutes" in said and "几分钟" in said and "later runs take seconds" in said
    said = pip_install.announcement(["tqdm>=4.60"], {"TOX_ENV_DIR": "/x/.tox/write"})
    assert "PyTorch" not in said and "tqdm>=4.60" in said and ".tox/write" in said


def test_the_cpu_index_goes_on_the_command_line_on_linux_where_torch_is(tmp_path):
    """On the command line pip adds it to the user's own indexes (a
    PIP_EXTRA_INDEX_URL would replace pip.conf's); not on macOS or Windows,
    not without torch, not where the user's settings name one already."""
    index = tmp_path / "cpu"
    index.mkdir()
    env = {"ATTENTION_TORCH_INDEX": index.as_uri()}
    argv, said = pip_install.command(DEPS, env, "linux", "python")
    assert argv == ["python", "-m", "pip", "install", *DEPS, "--extra-index-url", index.as_uri()]
    assert "CPU" in said and "your own pip settings stay in force" in said
    for platform in ("darwin", "win32"):
        assert pip_install.command(DEPS, env, platform, "python") == (["python", "-m", "pip", "install", *DEPS], "")
    assert pip_install.command(["tqdm>=4.60"], env, "linux", "python")[1] == ""
    assert pip_install.command(DEPS, {**env, "PIP_EXTRA_INDEX_URL": pip_install.CPU_INDEX}, "linux", "python")[1] == ""


def test_an_index_out_of_reach_is_left_out_and_said(tmp_path):
    """Where PyTorch's index cannot be reached (this machine, CI), pip would
    retry it for many minutes: it is left out, and the terminal says what to do."""
    env = {"ATTENTION_TORCH_INDEX": (tmp_path / "nowhere").as_uri()}
    argv, said = pip_install.command(DEPS, env, "linux", "python")
    assert "--extra-index-url" not in argv
    assert "cannot be reached" in said and "连不上" in said and "ATTENTION_TORCH_INDEX" in said
    assert not pip_install.reachable("http://127.0.0.1:9/", seconds=2)  # nothing listens on the discard port


def _wheel(folder, name: str, version: str) -> None:
    """A wheel of one empty module, as pip installs it."""
    import base64
    import hashlib
    import zipfile

    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{name.replace('-', '_')}_mod.py": b"",
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}\n" for path, data in files.items())
    files[f"{dist}.dist-info/RECORD"] = (record + f"{dist}.dist-info/RECORD,,\n").encode()
    project = folder / "simple" / name
    project.mkdir(parents=True)
    filename = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(project / filename, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    (project / "index.html").write_text(f'<html><body><a href="{filename}">{filename}</a></body></html>\n', encoding="utf-8")


def test_a_mirror_in_pip_conf_stays_in_force_beside_the_cpu_index(tmp_path):
    """A student's pip.conf names a mirror (here a local index holding a
    package PyPI would not have): installed through this command, with the
    CPU index added, both are used. Where a PIP_EXTRA_INDEX_URL carried the
    CPU index, pip.conf's extra-index-url was dropped."""
    mirror, cpu, empty = tmp_path / "mirror", tmp_path / "cpu", tmp_path / "empty"
    _wheel(mirror, "attention-mirror-probe", "1.0")
    _wheel(cpu, "torch", "0.0.1+cpu")  # not torch, but what the CPU index calls it
    (empty / "simple").mkdir(parents=True)
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[global]\nindex-url = {(empty / 'simple').as_uri()}\nextra-index-url = {(mirror / 'simple').as_uri()}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=str(conf), PIP_FIND_LINKS="", ATTENTION_TORCH_INDEX=(cpu / "simple").as_uri(), PIP_DISABLE_PIP_VERSION_CHECK="1")
    target = tmp_path / "site"
    packages = ["--target", str(target), "--no-deps", "torch==0.0.1", "attention-mirror-probe"]
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tox_install", "pip_install.py"), *packages],
        capture_output=True, text=True, env=env, timeout=300, start_new_session=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = sorted(p.name for p in target.glob("*.dist-info"))
    assert installed == ["attention_mirror_probe-1.0.dist-info", "torch-0.0.1+cpu.dist-info"], installed


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
