"""tox's ``install_command`` for every environment of the course: pip, seen,
and the CPU build of torch on Linux without a variable to type.

tox shows what an install prints only at ``-vv`` (with pages of its own
debugging): a first ``tox -e grade`` sat silent for minutes while pip
downloaded PyTorch. This runs the same ``python -m pip install ...``, but
first says on the terminal what is being installed and how long it takes,
and gives pip the terminal, so its progress bars show.

On Linux, PyPI's torch wheel is the CUDA build of several GB; PyTorch's CPU
index serves ``torch-X+cpu``, which pip prefers to PyPI's ``X`` for
``torch==X`` (a local version sorts after its public one). So where torch
is installed on Linux, the CPU index is given to pip on the command line,
``--extra-index-url``, which pip adds to the indexes the user's own
settings name (pip.conf, ``PIP_*``: a mirror, a local index, find-links
all stay in force). A ``PIP_EXTRA_INDEX_URL`` variable would replace the
``extra-index-url`` of pip.conf instead. The index is added only when it
answers within a few seconds: where it cannot be reached, pip would retry
it for many minutes; the user's own settings are then what serve torch
(a mirror of PyTorch's index in pip.conf, say) and the terminal says so.
``ATTENTION_TORCH_INDEX`` names another index of the CPU builds (a mirror).

tox keeps the output of what it runs; the terminal is reached past it, as
the controlling terminal (``/dev/tty``; ``CONOUT$`` on Windows). Where there
is none (CI, a test, output sent to a file) pip runs as tox would run it.

Run as a script (``python -I tox_install/pip_install.py``): it imports nothing
but the standard library, before anything is installed.
"""

import os
import re
import subprocess
import sys
import urllib.request

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
REACH_SECONDS = 5.0


def terminal():
    """The terminal tox runs in, open for writing, or None."""
    for name in ("CONOUT$",) if sys.platform == "win32" else ("/dev/tty",):
        try:
            return open(name, "w", encoding="utf-8", errors="replace")
        except OSError:
            continue
    return None


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]*", requirement).group().lower()  # type: ignore[union-attr]  # * matches the empty string too


def cpu_index(environ) -> str:
    return environ.get("ATTENTION_TORCH_INDEX") or CPU_INDEX


def wants_cpu_index(packages: list[str], environ, platform: str) -> bool:
    """Linux, torch among the packages, and no CPU index among the user's settings already."""
    if not (platform.startswith("linux") and "torch" in map(_name, packages)):
        return False
    return "/whl/cpu" not in _configured(environ) and cpu_index(environ) not in _configured(environ)


def _configured(environ) -> str:
    """The indexes the user's pip settings name (variables and pip.conf), as one text."""
    said = environ.get("PIP_INDEX_URL", "") + " " + environ.get("PIP_EXTRA_INDEX_URL", "")
    try:
        listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60, env=dict(environ)).stdout
    except (OSError, subprocess.SubprocessError):
        listed = ""
    return said + " " + " ".join(line for line in listed.splitlines() if "index-url" in line)


def reachable(url: str, seconds: float = REACH_SECONDS) -> bool:
    """Whether ``url`` answers at all within ``seconds`` (a file: URL, whether its folder is there)."""
    if url.startswith("file://"):
        return os.path.isdir(urllib.request.url2pathname(url[len("file://") :]))
    try:
        with urllib.request.urlopen(urllib.request.Request(url.rstrip("/") + "/", method="HEAD"), timeout=seconds):
            return True
    except OSError:  # URLError, a timeout, a refused connection, an HTTP error
        return False


def command(packages: list[str], environ, platform: str, executable: str = sys.executable) -> tuple[list[str], str]:
    """pip's command line, and what to say about where torch comes from ("" when nothing)."""
    argv = [executable, "-m", "pip", "install", *packages]
    if not wants_cpu_index(packages, environ, platform):
        return argv, ""
    index = cpu_index(environ)
    if reachable(index):
        return argv + ["--extra-index-url", index], (f"torch：CPU 版，来自 {index}（你自己的 pip 设置照样有效）。\ntorch: the CPU build, from {index} (your own pip settings stay in force).\n")
    return argv, (
        f"torch：连不上 {index}，只用你自己的 pip 设置；它们没有 CPU 版时，Linux 上装的是几 GB 的 CUDA 版。\n"
        f"办法见 README 的“装 PyTorch”：在 pip.conf 里加一个 PyTorch CPU 索引的镜像，或者设 ATTENTION_TORCH_INDEX。\n"
        f"torch: {index} cannot be reached, so only your own pip settings are used; unless they serve the CPU build,\n"
        f'Linux gets the CUDA build of several GB. The README\'s "Installing PyTorch" says what to do: a mirror of\n'
        f"PyTorch's CPU index in pip.conf, or ATTENTION_TORCH_INDEX.\n"
    )


def announcement(packages: list[str], environ) -> str:
    """What the student reads before pip starts."""
    venv = os.path.basename(environ.get("VIRTUAL_ENV", "") or environ.get("TOX_ENV_DIR", "")) or "tox"
    names = ", ".join(p for p in packages if not p.startswith("-"))
    torch = "torch" in map(_name, packages)
    size_zh, size_en = ("（PyTorch 有几百 MB）", " (PyTorch is hundreds of MB)") if torch else ("", "")
    return f"正在安装 {names} 到 .tox/{venv}：只在第一次，要几分钟{size_zh}；以后每次几秒钟。\nInstalling {names} into .tox/{venv}: first run only, a few minutes{size_en}; later runs take seconds.\n"


def main(argv: list[str], tty=None, environ=None, platform: str = sys.platform) -> int:
    environ = os.environ if environ is None else environ
    pip, about_torch = command(argv, environ, platform)
    tty = tty if tty is not None else terminal()
    if tty is None:
        return subprocess.call(pip)
    with tty:
        tty.write(announcement(argv, environ) + about_torch)
        tty.flush()
        return subprocess.call(pip, stdout=tty, stderr=tty)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
