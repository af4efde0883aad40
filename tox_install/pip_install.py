"""tox's ``install_command`` for the student's environment: pip, seen.

tox shows what an install prints only at ``-vv`` (with pages of its own
debugging): the first ``tox -e grade`` sat silent for minutes while pip
downloaded PyTorch. This runs the same ``python -m pip install ...``, but
first says on the terminal what is being installed and how long it takes,
and gives pip the terminal, so its progress bars show. On Linux, without
PyTorch's CPU index in ``PIP_INDEX_URL`` or ``PIP_EXTRA_INDEX_URL``, it says
that PyPI's wheel is the CUDA build of several GB, and how to get the CPU one.

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

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


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


def announcement(packages: list[str], environ, platform: str) -> str:
    """What the student reads before pip starts."""
    venv = os.path.basename(environ.get("VIRTUAL_ENV", "") or environ.get("TOX_ENV_DIR", "")) or "tox"
    names = ", ".join(p for p in packages if not p.startswith("-"))
    torch = "torch" in map(_name, packages)
    size_zh, size_en = ("（PyTorch 有几百 MB）", " (PyTorch is hundreds of MB)") if torch else ("", "")
    lines = [
        f"正在安装 {names} 到 .tox/{venv}：只在第一次，要几分钟{size_zh}；以后每次几秒钟。",
        f"Installing {names} into .tox/{venv}: first run only, a few minutes{size_en}; later runs take seconds.",
    ]
    indexes = environ.get("PIP_INDEX_URL", "") + " " + environ.get("PIP_EXTRA_INDEX_URL", "")
    if torch and platform.startswith("linux") and "/whl/cpu" not in indexes:
        lines += [
            f"注意：Linux 上 PyPI 的 torch 是几 GB 的 CUDA 版。要 CPU 版就按 Ctrl-C，删掉 .tox/{venv}，再运行：",
            f"Note: on Linux, PyPI's torch is the CUDA build of several GB. For the CPU build, press Ctrl-C, remove .tox/{venv} and run:",
            f"    PIP_EXTRA_INDEX_URL={CPU_INDEX} tox -e {venv}",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str], tty=None) -> int:
    command = [sys.executable, "-m", "pip", "install", *argv]
    tty = tty if tty is not None else terminal()
    if tty is None:
        return subprocess.call(command)
    with tty:
        tty.write(announcement(argv, os.environ, sys.platform))
        tty.flush()
        return subprocess.call(command, stdout=tty, stderr=tty)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
