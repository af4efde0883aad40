"""The code blocks of one section of README.md or of a docs page, for the
tests that run them as written (test_course_notebooks: README's "Students
in Jupyter"; test_nbgrader_course: docs/teachers/nbgrader.md; test_wheel:
docs/teachers/release.md; ...)."""

import glob
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import early

ROOT = Path(__file__).resolve().parents[2]
# A fence's info string may be a directive's (```{cli-help} batch): matched
# whole, so that such a block's closing fence is never taken for an opening one.
_FENCE = re.compile(r"^```([^`\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def page(name: str) -> Path:
    """The docs page ``name`` (``"teachers/nbgrader.md"``), for ``blocks(..., page(name))``."""
    path = ROOT / "docs" / name
    assert path.is_file(), f"docs/{name} is not there"
    return path


def blocks(title: str, language: str, readme: Path = ROOT / "README.md") -> list[str]:
    """The ``language`` code blocks of the section whose heading ends with
    ``title``, in README.md or another Markdown file (a docs page: its
    headings are “中文 · English”, so ``title`` is the English half, or its
    end). The section runs to the next heading of its level or above: a
    page's ``#`` title is the whole page."""
    text = readme.read_text(encoding="utf-8")
    heading = re.search(rf"^(#+) .*{re.escape(title)}\n", text, re.MULTILINE)
    assert heading, f"{readme.name} has no section {title!r}"
    level = len(heading.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, heading.end())
    body = text[heading.end() : end.start() if end else len(text)]
    return [code for info, code in _FENCE.findall(body) if info.strip() == language]


def commands(block: str) -> list[list[str]]:
    """A shell block's commands, comments dropped."""
    return [argv for argv in (shlex.split(line, comments=True) for line in block.splitlines()) if argv]


def tox_command(folder: Path, argv: list[str]) -> list[str]:
    """``tox -e ENV [-- ARGS]`` as the command line tox runs in ``folder``:
    ENV's command from that folder's own tox.ini, ``{tox_root}`` the folder,
    ``{posargs}`` ARGS, and this interpreter for ``python`` (tox itself is not
    run: it would install torch)."""
    import configparser

    assert argv[:2] == ["tox", "-e"] and (len(argv) == 3 or argv[3] == "--"), argv
    config = configparser.ConfigParser(interpolation=None)
    config.read(folder / "tox.ini", encoding="utf-8")
    out = []
    for word in shlex.split(config[f"testenv:{argv[2]}"]["commands"].replace("{tox_root}", str(folder))):
        m = re.fullmatch(r"\{posargs(?::(.*))?\}", word)
        out += (argv[4:] or shlex.split(m.group(1) or "")) if m else [word]
    assert out[0] == "python", out
    return [sys.executable, *out[1:]]


class Shell:
    """Runs a README's teacher commands as written, with this interpreter:
    ``tox -e teacher -- ARGS`` is ``python -m grader ARGS`` (tox.ini's
    teacher command) with ``PYTHONPATH`` the project tox finds from the
    folder (the nearest one up with a tox.ini; this project when there is
    none), ``tox exec -e teacher -- python ARGS`` is this interpreter with
    the same ``PYTHONPATH`` (``-- nbgrader ARGS``: its nbgrader, so), ``source .tox/teacher/bin/activate`` puts this interpreter's
    folder first on PATH, ``cd`` moves, ``nbgrader ARGS`` is this
    interpreter's nbgrader, and ``mkdir`` and ``cp`` are themselves, with
    their wildcards expanded as the shell does. Any other command fails the
    test, so a command added to the README cannot go untested. A ``python -m``
    command is forked from the session's warm interpreter
    (``conftest.python_m_grader``): the same command line, folder and
    environment, without torch's and nbgrader's imports each time."""

    def __init__(self, cwd: Path):
        self.cwd = cwd
        self.env = early.environ()  # os.environ's, but for a fixture made early: the session's
        self.env.pop("PYTHONPATH", None)

    def run(self, argv: list[str]) -> subprocess.CompletedProcess | None:
        if argv[:4] == ["tox", "-e", "teacher", "--"]:
            return self._run([sys.executable, "-m", "grader", *argv[4:]], PYTHONPATH=self._tox_root())  # tox.ini's set_env
        if argv[:6] == ["tox", "exec", "-e", "teacher", "--", "python"]:
            return self._run([sys.executable, *argv[6:]], PYTHONPATH=self._tox_root())
        if argv[:6] == ["tox", "exec", "-e", "teacher", "--", "nbgrader"]:
            return self._run([sys.executable, "-m", "nbgrader", *argv[6:]], PYTHONPATH=self._tox_root())
        if argv == ["source", ".tox/teacher/bin/activate"]:
            self.env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + self.env.get("PATH", "")
            return None  # an activated environment sets no PYTHONPATH: nbgrader_config.py does
        if argv[0] == "cd" and len(argv) == 2:
            self.cwd = (self.cwd / argv[1]).resolve()
            return None
        if argv[0] in ("mkdir", "cp"):
            expanded = [sorted(glob.glob(a, root_dir=self.cwd)) or [a] if glob.has_magic(a) else [a] for a in argv[1:]]
            return self._run([argv[0], *(a for group in expanded for a in group)])
        if argv[0] == "nbgrader":
            return self._run([sys.executable, "-m", "nbgrader", *argv[1:]])
        raise AssertionError(f"README command the test cannot run: {shlex.join(argv)}")

    def _tox_root(self) -> str:
        """The folder of the tox.ini tox finds from here (the nearest one up; this project when there is none)."""
        return str(next((p for p in [self.cwd, *self.cwd.parents] if (p / "tox.ini").is_file()), ROOT))

    def _run(self, argv: list[str], **env: str) -> subprocess.CompletedProcess:
        if argv[:2] == [sys.executable, "-m"]:
            from conftest import python_m_grader  # the same command forked from the session's warm interpreter

            proc = python_m_grader(argv[3:], cwd=self.cwd, env={**self.env, **env}, timeout=900, module=argv[2])
        else:
            proc = subprocess.run(argv, cwd=self.cwd, env={**self.env, **env}, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{shlex.join(argv)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc


def markdown_links(text: str) -> list[str]:
    """Every link target of the Markdown ``text`` (``[a](x)``, ``<https://…>``, images), as CommonMark reads it."""
    from markdown_it import MarkdownIt

    found = []
    for block in MarkdownIt("commonmark").parse(text):
        for tok in block.children or []:
            if tok.type in ("link_open", "image"):
                found.append(tok.attrs.get("href") or tok.attrs.get("src"))
    return found
