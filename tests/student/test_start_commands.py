"""Every command on the start page, and every grade command of README.md's
student section, works as written: in a fresh copy of the project (its
tracked files, as a clone has them) and in the student edition
(``python -m grader release``). Graded, the untouched stubs say one line per
exercise and close on the total and what to do next, and the command exits
with 1 (tox -e grade's ``--exit-code``), so tox ends with "evaluation
failed", not "congratulations".

The commands are read from the page's code blocks (```bash fences and
indented blocks, in either language). tox itself is not run (it would install
torch): ``tox -e grade -- ARGS`` becomes the grade environment's command from
that folder's own tox.ini, and ``tox exec -e grade -- CMD`` becomes CMD, each
run with this interpreter (which has torch), the folder as working directory
and ``PYTHONPATH`` set as the environment sets it. Commands that need the
network or change the machine are listed in ``NOT_RUN``; any other command the
test cannot map fails it, so a new command on the page cannot go untested.
"""

import configparser
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ctrl_c_as_in_a_terminal
from docs_site import DOCS, ROOT, markdown_tokens

from grader.exercises import IDS

START = DOCS / "start.md"
SHELL_FENCES = {"bash", "sh", "shell", "console"}

# Installing tox (the first run's install of torch is tests/unit/test_first_install.py's).
NOT_RUN = {
    "python -m pip install tox",
}

# What a student types into the interactive Python of ``python -i``: the ex0
# page's example, which runs their (here: unfinished) weighted_sum.
TYPED = "import torch\nfrom ex0_weighted_sum import weighted_sum\nweighted_sum(torch.zeros(3), torch.eye(3))\n"


def page_commands(path: Path = START) -> list[str]:
    """The shell commands of the page's code blocks, each once, in page order,
    comments dropped and spacing normalised (``shlex.join``)."""
    return markdown_commands(path.read_text(encoding="utf-8"))


def markdown_commands(text: str) -> list[str]:
    """``page_commands`` of Markdown text (a fence indented in a list item too)."""
    found: list[str] = []

    def walk(tokens):
        for tok in tokens:
            info = tok.info.strip() if tok.type in ("fence", "colon_fence") else ""
            if tok.type == "code_block" or (tok.type == "fence" and info in SHELL_FENCES):
                for line in tok.content.splitlines():
                    argv = shlex.split(line, comments=True)
                    if argv and shlex.join(argv) not in found:
                        found.append(shlex.join(argv))
            elif tok.type == "colon_fence":
                walk(markdown_tokens(tok.content))

    walk(markdown_tokens(text))
    return found


def as_run(command: str, folder: Path) -> list[str]:
    """The command line that ``command`` runs inside tox's grade environment of ``folder``."""
    argv = shlex.split(command)
    if argv[:3] == ["tox", "-e", "grade"]:
        assert len(argv) == 3 or argv[3] == "--", command
        posargs = argv[4:]
        config = configparser.ConfigParser(interpolation=None)
        config.read(folder / "tox.ini", encoding="utf-8")
        out = []
        for word in shlex.split(config["testenv:grade"]["commands"]):
            m = re.fullmatch(r"\{posargs(?::(.*))?\}", word)
            out += (posargs or shlex.split(m.group(1) or "")) if m else [word]
    elif argv[:5] == ["tox", "exec", "-e", "grade", "--"]:
        out = argv[5:]
    else:
        raise AssertionError(f"the test does not know how to run {command!r}: map it here, or add it to NOT_RUN")
    assert out[0] == "python", command
    return [sys.executable, *out[1:]]


def run(command: str, folder: Path) -> subprocess.CompletedProcess:
    """``command`` in a fresh copy of ``folder``, as tox's grade environment runs it."""
    work = folder.parent / f"{folder.name}-{zlib.crc32(command.encode()):08x}"
    shutil.copytree(folder, work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(work), PYTHONDONTWRITEBYTECODE="1")  # tox.ini: PYTHONPATH = {tox_root}
    argv = as_run(command, work)
    if "--watch" in argv:
        proc = _watched(argv, work, env)
    else:
        proc = subprocess.run(argv, cwd=work, env=env, input=TYPED if "-i" in argv else "", capture_output=True, text=True, timeout=300)
    proc.work = work
    return proc


def _watched(argv: list[str], work: Path, env: dict) -> subprocess.CompletedProcess:
    """``grade --watch`` as a student uses it: its first report, then a save
    of ex0's file and the report of that, then Ctrl-C."""
    proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_in_a_terminal)
    out = []
    try:
        for n in range(2):
            while "watching for saves" not in (out[-1] if out else ""):
                line = proc.stdout.readline()
                if not line:
                    break
                out.append(line)
            if n == 0:
                stub = work / "exercises" / "ex0_weighted_sum.py"
                stub.write_text(stub.read_text(encoding="utf-8") + "\n", encoding="utf-8")
                out.append("")
        proc.send_signal(signal.SIGINT)  # Ctrl-C: the watch ends with 0
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, "".join(out) + rest, err)


def readme_commands() -> list[str]:
    """The shell commands of README.md's student section up to its Jupyter
    part (tests/student/test_lab.py's), each once, in order, as ``page_commands``
    writes them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## 学生 / Students\n(.*?)^##+ ", text, re.MULTILINE | re.DOTALL)
    assert section, "README.md has no student section"
    return markdown_commands(section.group(1))


def left_to_others(command: str) -> bool:
    """``tox -e write``: it trains for minutes, and tests/student/test_write.py runs it."""
    return shlex.split(command)[:3] == ["tox", "-e", "write"]


README_COMMANDS = [c for c in readme_commands() if c not in NOT_RUN and not left_to_others(c)]
COMMANDS = [c for c in page_commands() if c not in NOT_RUN]
COMMANDS += [c for c in README_COMMANDS if c not in COMMANDS]


@pytest.fixture(scope="module")
def results(fresh_clone, student_edition) -> dict:
    """(edition, command) -> the finished process; all of them run side by side."""
    folders = {"clone": fresh_clone, "release": student_edition}
    jobs = [(edition, command) for edition in folders for command in COMMANDS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = pool.map(lambda job: run(job[1], folders[job[0]]), jobs)
        return dict(zip(jobs, done))


def test_the_page_has_the_commands_we_expect():
    commands = page_commands()
    assert NOT_RUN <= set(commands), f"NOT_RUN lists commands the page no longer has: {NOT_RUN - set(commands)}"
    assert any(c.startswith("tox -e grade") for c in COMMANDS)
    assert any(c.startswith("tox exec -e grade -- python experiments/") for c in COMMANDS)
    assert any(" -i " in c for c in COMMANDS)  # the way to try the examples


def test_the_readme_has_the_commands_we_expect():
    readme = readme_commands()
    # The CPU build needs no variable (tox_install/pip_install.py): the first command is the plain one.
    first_tox = next(c for c in readme if "tox" in c.split()[:2])
    assert first_tox == "tox -e grade" and not [c for c in readme if "PIP_" in c], readme
    assert {"tox -e grade", "tox -e grade -- --only ex4_masking"} <= set(README_COMMANDS)
    assert all(c.startswith(("tox -e grade", "tox exec -e grade")) for c in README_COMMANDS), README_COMMANDS


def test_the_student_editions_readme_starts_with_the_plain_command(student_edition):
    said = markdown_commands((student_edition / "README.md").read_text(encoding="utf-8"))
    first_tox = next(c for c in said if "tox" in c.split()[:2])
    assert first_tox == "tox -e grade" and not [c for c in said if "PIP_" in c], said
    text = (student_edition / "README.md").read_text(encoding="utf-8")
    assert "ATTENTION_TORCH_INDEX" in text and "pip.conf" in text  # where PyTorch's index cannot be reached


def test_the_student_editions_grade_commands_are_run_here(student_edition):
    """Its README's grade commands (--watch, --json and --help among them) are the start page's, which run above."""
    said = markdown_commands((student_edition / "README.md").read_text(encoding="utf-8"))
    grade = [c for c in said if c.startswith("tox -e grade") and c not in NOT_RUN]
    assert {"tox -e grade -- --watch", "tox -e grade -- exercises --json results.json", "tox -e grade -- --help"} <= set(grade)
    assert [c for c in grade if c not in COMMANDS] == []


def test_page_commands_reads_fences_and_indented_blocks(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(":::{zh}\n说明：\n\n    python -m pip install tox\n:::\n\n```bash\ntox -e grade   # all\ntox -e grade   # again\n```\n\n```text\nnot a command\n```\n", encoding="utf-8")
    assert page_commands(page) == ["python -m pip install tox", "tox -e grade"]


@pytest.mark.parametrize("edition", ["clone", "release"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: re.sub(r"\W+", "-", c).strip("-")[:50])
def test_command_works(results, edition, command):
    proc = results[edition, command]
    said = proc.stdout + proc.stderr
    argv = shlex.split(command)
    graded = argv[:3] == ["tox", "-e", "grade"] and not {"--watch", "--help"} & set(argv)
    # Graded, the stubs fail every check: 1, so that tox says "evaluation failed". Anything else: 0.
    assert proc.returncode == (1 if graded else 0), said
    assert (proc.stderr if "-i" in argv else proc.stdout).strip(), said  # python -i prompts on stderr
    if "--help" in argv:
        assert "--watch" in proc.stdout and "--json" in proc.stdout, said
    elif argv[:3] == ["tox", "-e", "grade"]:
        # The folders hold the stubs: graded, they are "not implemented yet", which is not an error.
        assert "尚未完成" in proc.stdout and "not implemented yet" in proc.stdout, said
        if "--only" in argv:
            only = argv[argv.index("--only") + 1]
            assert only in proc.stdout and not [ex for ex in IDS if ex != only and ex in proc.stdout], said
    if graded:
        untouched_stubs_say_one_line_each(proc.stdout, argv[argv.index("--only") + 1] if "--only" in argv else None)
        if "--json" in argv:
            written = json.loads((proc.work / argv[argv.index("--json") + 1]).read_text(encoding="utf-8"))
            assert {t["tags"][0] for t in written["tests"]} == set(IDS)
    if "-i" in argv:
        # The student's own file is imported (not a copy elsewhere), and says it is unfinished.
        assert "NotImplementedError" in proc.stderr, said
        assert re.search(r"exercises[/\\]ex0_weighted_sum\.py", proc.stderr), said


def untouched_stubs_say_one_line_each(report: str, only: str | None) -> None:
    """The report of untouched stubs: each exercise has its row in the table
    and one line below it, no check listed; the last two lines, Chinese then
    English, give the total and the next step, with the exercise to start."""
    lines = report.rstrip("\n").splitlines()
    graded = [only] if only else IDS
    for ex in graded:
        about = [line for line in lines[:-2] if ex in line]
        assert len(about) == 2, (ex, about)  # its row and its line
        assert any("尚未完成 / not implemented yet" in line for line in about), (ex, about)
    assert not [line for line in lines if line.startswith("✗")], report
    assert len(lines) <= 6 + 2 * len(graded) + 8, report  # title, table, total, (+n), the closing lines
    zh, en = lines[-2:]
    total = r"0 / \d+"
    assert re.fullmatch(rf"总分 {total}：.*没开始。下一步：.*{graded[0]}.*", zh), zh
    started = "not started yet" if only else "nothing started yet"
    assert re.fullmatch(rf"Total {total}: {started}\. Next: .*{graded[0]}.*TODO\.", en), en


def test_examples_that_run_the_students_code_are_found():
    """The page promises a note before each example that runs the student's code
    (docs/_ext/student_code_note.py): it is found from the example's imports."""
    from student_code_note import note, student_imports

    example = ">>> import torch\n>>> from ex4_masking import causal_mask, causal_weights\n>>> import ex1_averaging\n"
    assert student_imports(example) == {"ex4_masking": ["causal_mask", "causal_weights"], "ex1_averaging": ["ex1_averaging"]}
    assert student_imports(">>> import torch\n>>> from grader.cli import main\n") == {}
    text = note({"ex0_weighted_sum": ["weighted_sum"]}).astext()
    assert "weighted_sum" in text and "exercises/ex0_weighted_sum.py" in text and "NotImplementedError" in text
