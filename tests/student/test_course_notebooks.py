"""The students' notebooks (notebooks/<id>.ipynb, written by
grader/teacher/edition/course_notebooks.py) and grading from inside one
(grader/notebook.py), run in a real Jupyter kernel (nbclient and ipykernel,
as JupyterLab runs them)."""

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, SOLUTIONS
from readme_sections import blocks, commands, markdown_links, tox_command

from grader.exercises import BY_ID, IDS
from grader.teacher.edition import course_notebooks

NOTEBOOKS = Path(ROOT, "notebooks")


def test_the_notebooks_are_made_from_the_course():
    assert course_notebooks.stale() == [], "notebooks/ is out of date: run python -m grader notebooks"


@pytest.mark.parametrize("ex", IDS)
def test_a_notebook_holds_the_page_the_experiment_the_stub_and_check(ex):
    nb = nbformat.read(NOTEBOOKS / BY_ID[ex].notebook, as_version=4)
    nbformat.validate(nb)
    sources = [c.source for c in nb.cells]
    answer = [c for c in nb.cells if c.metadata.get("exercise") == ex]
    assert len(answer) == 1 and answer[0].source == Path(ROOT, "exercises", BY_ID[ex].filename).read_text(encoding="utf-8").rstrip("\n")
    assert Path(ROOT, "experiments", f"{ex}_experiment.py").read_text(encoding="utf-8").rstrip("\n") in sources
    assert sources[-1] == f'check("{ex}")'
    title = sources[0]
    assert f"](../docs/path/{ex}.md)" in title and Path(ROOT, "docs", "path", ex + ".md").exists()
    assert "MyST" in title and "`tox -e docs`" in title  # what the link opens, and where the site is made
    # The notebook's one link opens a file beside it in a clone, not a built site tox -e docs may not have made yet.
    links = [link for c in nb.cells if c.cell_type == "markdown" for link in markdown_links(c.source)]
    assert links == [f"../docs/path/{ex}.md"] and (NOTEBOOKS / links[0]).resolve().is_file(), links
    assert "{gls}" not in "".join(sources[:2]) and "{num}" not in "".join(sources[:2])  # MyST roles became text
    assert any("这一课" in s or "这" in s for s in sources[:2]) and "Key points" in sources[1]


def test_a_stale_notebook_is_found(tmp_path):
    project = tmp_path / "course"
    for folder in ("docs/path", "exercises", "experiments", "notebooks"):
        shutil.copytree(Path(ROOT, folder), project / folder)
    assert course_notebooks.stale(str(project)) == []
    stub = project / "exercises" / "ex3_scaling.py"
    stub.write_text(stub.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert course_notebooks.stale(str(project)) == ["notebooks/ex3_scaling.ipynb"]


def test_the_page_link_can_point_at_a_published_site():
    text = course_notebooks.make_notebook("ex2_scores", docs_url="https://example.org/course/")
    assert "](https://example.org/course/path/ex2_scores.html)" in text
    assert "MyST" not in text


@pytest.mark.parametrize(
    "path",
    ["notebooks/.ipynb_checkpoints/ex0_weighted_sum-checkpoint.ipynb", "exercises/.ipynb_checkpoints/ex3_scaling-checkpoint.py", ".ipynb_checkpoints/README-checkpoint.md"],
)
def test_jupyters_checkpoints_are_ignored_by_git(path):
    """JupyterLab keeps a copy of each file saved in it in .ipynb_checkpoints/ beside it (tox -e lab)."""
    if not Path(ROOT, ".git").exists():
        pytest.skip("not a git checkout")
    assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, f"git would offer to commit {path}"


# --- in a real kernel ----------------------------------------------------------


def with_answer(ex: str, source: str, folder: Path, before_check: str | None = None) -> Path:
    """The course's notebook of ``ex`` in ``folder`` with ``source`` in its
    answer cell (and a cell ``before_check`` run just before ``check``)."""
    nb = nbformat.read(NOTEBOOKS / BY_ID[ex].notebook, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("exercise") == ex:
            cell.source = source
    if before_check:
        nb.cells.insert(len(nb.cells) - 1, nbformat.v4.new_code_cell(before_check))
    path = folder / BY_ID[ex].notebook
    nbformat.write(nb, path)
    return path


@pytest.fixture
def course_on_path(monkeypatch):
    """The kernel imports grader/ as one started by ``tox -e lab`` does (its PYTHONPATH)."""
    monkeypatch.setenv("PYTHONPATH", ROOT)


def run_in_kernel(path: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def html_of(cell) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)


def test_check_in_a_kernel_grades_the_saved_answer_not_the_kernel(tmp_path, course_on_path):
    """The reference scores full marks, a catalogue mistake shows its
    feedback and diagnosis in both languages, and a kernel that patches
    torch or redefines the function changes nothing."""
    right = Path(SOLUTIONS, "ex0_weighted_sum.py").read_text(encoding="utf-8")
    wrong = Path(ROOT, "tests", "catalogue", "wrong", "ex0_weighted_sum__softmax_dim0.py").read_text(encoding="utf-8")
    cheat = "import torch\ntorch.softmax = lambda *a, **k: 0  # the kernel's torch, not the grader's\ndef weighted_sum(scores, values):\n    return values.mean(-2)\n"
    (tmp_path / "right").mkdir()
    (tmp_path / "wrong").mkdir()
    nb_right = run_in_kernel(with_answer("ex0_weighted_sum", right, tmp_path / "right", before_check=cheat))
    nb_wrong = run_in_kernel(with_answer("ex0_weighted_sum", wrong, tmp_path / "wrong"))
    shown_right, shown_wrong = html_of(nb_right.cells[-1]), html_of(nb_wrong.cells[-1])
    points = BY_ID["ex0_weighted_sum"].points  # the teacher's tree: hidden checks too
    assert f"<th>{points} / {points}</th>" in shown_right, shown_right
    assert "✗" not in shown_right
    assert "<th>总分 / total</th>" in shown_wrong and f"{points} / {points}</th>" not in shown_wrong
    assert "诊断 / found:" in shown_wrong and "softmax" in shown_wrong
    assert "测试 / tested:" in shown_wrong


def test_an_answer_cell_imports_the_earlier_notebook_in_the_kernel(tmp_path, course_on_path):
    """ex6's answer cell says ``from ex5_head import Head``: in the kernel it
    finds ex5_head.ipynb's answer cell; the grader grades ex6 with its own Head."""
    with_answer("ex5_head", Path(SOLUTIONS, "ex5_head.py").read_text(encoding="utf-8"), tmp_path)
    path = with_answer(
        "ex6_block",
        Path(SOLUTIONS, "ex6_block.py").read_text(encoding="utf-8"),
        tmp_path,
        before_check="b = Block(8, 2, 4, 0.0)\nprint(tuple(b(torch.zeros(1, 3, 8)).shape))",
    )
    nb = run_in_kernel(path)
    printed = "".join(o.get("text", "") for o in nb.cells[-2].outputs)
    assert printed.strip() == "(1, 3, 8)"
    points = BY_ID["ex6_block"].points
    assert f"<th>{points} / {points}</th>" in html_of(nb.cells[-1])


def test_an_unsaved_answer_is_reported(tmp_path, monkeypatch):
    from grader import notebook

    path = with_answer("ex0_weighted_sum", "def weighted_sum(s, v):\n    return v", tmp_path)

    class Shell:
        user_ns = {"In": ["", "def weighted_sum(s, v):\n    return v + 1"]}

    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell())
    warned = notebook._unsaved(str(path), "ex0_weighted_sum")
    assert warned and "Save (Ctrl-S)" in warned[0] and "保存" in warned[0]
    Shell.user_ns["In"].append("def weighted_sum(s, v):\n    return v")
    assert notebook._unsaved(str(path), "ex0_weighted_sum") == []


def test_the_html_report_escapes_what_the_student_wrote():
    from grader.notebook import to_html

    results = {
        "score": 0,
        "tests": [{"name": "ex0_weighted_sum: a check", "tags": ["ex0_weighted_sum", "public", "c"], "score": 0, "max_score": 1, "status": "failed", "output": "<script>alert(1)</script>"}],
    }
    shown = to_html(results, "", ["<b>warn</b>"])
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "<b>warn" not in shown
    assert json.dumps(results)  # unchanged, plain data


def test_the_readmes_students_in_jupyter_commands(tmp_path, course_on_path):
    """The section's shell command is tox -e lab (test_lab.py starts it from
    tox.ini); its Python block, run in a kernel beside a finished ex0
    notebook, grades it and then the whole folder."""
    lines = [c for b in blocks("Students in Jupyter", "bash") for c in commands(b)]
    assert lines[0] == ["tox", "-e", "lab"] and all(c[:3] == ["tox", "-e", "lab"] for c in lines)
    with_answer("ex0_weighted_sum", Path(SOLUTIONS, "ex0_weighted_sum.py").read_text(encoding="utf-8"), tmp_path)
    (code,) = blocks("Students in Jupyter", "python")
    lines = [line for line in code.strip().splitlines() if line.strip()]  # a cell per statement
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(line) for line in lines])
    nbformat.write(nb, tmp_path / "readme.ipynb")
    ran = run_in_kernel(tmp_path / "readme.ipynb")
    one, every = html_of(ran.cells[1]), html_of(ran.cells[2])
    points = BY_ID["ex0_weighted_sum"].points
    assert f"<th>{points} / {points}</th>" in one
    assert all(ex in every for ex in IDS) and f"{points} / {points}</td>" in every


# --- tox -e lab, as the READMEs say it -------------------------------------------

# Jupyter's own line for the address to open, with the page tox.ini opens on.
SERVING = re.compile(r"http://127\.0\.0\.1:(\d+)/lab/tree/notebooks\?token=(\w+)")
ROOT_REFUSED = "Running as root is not recommended"


def lab_as_written(folder: Path, argv: list[str], home: Path) -> tuple[str, list[str]]:
    """A README's ``tox -e lab ...`` line run in ``folder`` as tox runs it, by
    whoever runs the tests (root here, as in a container), with no display
    or browser: until its log prints the address it serves, then stopped.
    Its log, and the notebooks its server lists in notebooks/."""
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JUPYTER")) and k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    # tox.ini's set_env; Jupyter's own folders kept out of the machine's home.
    env.update(PYTHONPATH=str(folder), PYTHONDONTWRITEBYTECODE="1", HOME=str(home), JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    log_path = home / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(tox_command(folder, argv), cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    listed = []
    try:
        deadline = time.monotonic() + 120
        while not SERVING.search(log_path.read_text()) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
        found = SERVING.search(log_path.read_text())
        if found:
            port, token = found.groups()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/notebooks?token={token}", timeout=30) as r:
                listed = sorted(item["name"] for item in json.load(r)["content"])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # as Ctrl-C's second press: Jupyter stops at once
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return log_path.read_text(), listed


@pytest.mark.parametrize("edition, section", [("clone", "Students in Jupyter"), ("release", "In Jupyter")])
def test_the_readmes_lab_commands_start_jupyterlab(edition, section, fresh_clone, student_edition, tmp_path):
    """Each ``tox -e lab`` line of the edition's own README, run as written
    (as root when the tests are, as they are in CI's container): Jupyter
    says it serves the folder, prints the address of notebooks/, and lists
    the eight notebooks there; it never refuses root."""
    folder = fresh_clone if edition == "clone" else student_edition
    lines = [c for b in blocks(section, "bash", folder / "README.md") for c in commands(b)]
    assert lines and all(c[:3] == ["tox", "-e", "lab"] for c in lines), lines
    for n, argv in enumerate(lines):
        log, listed = lab_as_written(folder, argv, tmp_path / f"home{n}")
        said = f"{' '.join(argv)} (as uid {os.geteuid()}):\n{log[-3000:]}"
        assert ROOT_REFUSED not in log, said
        assert f"Serving notebooks from local directory: {folder}" in log and "is running at:" in log, said
        assert SERVING.search(log), said
        assert [name for name in listed if name.endswith(".ipynb")] == sorted(BY_ID[ex].notebook for ex in IDS), said
