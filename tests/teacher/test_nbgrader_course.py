"""The unit as an nbgrader course (``python -m grader nbgrader``), driven by
the real nbgrader's commands as docs/teachers/nbgrader.md gives them
(its bash blocks, run as written), in a fresh copy of the project: generate_assignment, release_assignment
and collect through an exchange of the test's (one student fetches and
submits in between), the page's two made-up students copied into
submitted/, autograde, generate_feedback and export; validate in a real
kernel.

More students hand in two of the eight notebooks (the rest are missing,
which nbgrader scores 0): the reference, the untouched release, a catalogue
mistake, and an answer cell that attacks the kernel it would run in.
"""

import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_tracked, python_m_grader
from early import Early
from readme_sections import Shell, blocks, commands, page

from grader.exercises import BY_ID, IDS, TOTAL
from grader.teacher.edition.release import find_leaks
from grader.teacher.platforms import nbgrader_course

ROOT = Path(__file__).resolve().parents[2]
HANDED_IN = ["ex0_weighted_sum", "ex4_masking"]
MISTAKE = ROOT / "tests" / "catalogue" / "wrong" / "ex0_weighted_sum__float32_cast.py"
# An answer cell that, run in a kernel, would give itself full marks and
# leave a file behind; graded in the sandbox, it is an unfinished answer.
ATTACK = """import os, grader.notebook
open(os.path.join(os.getcwd(), "the_kernel_ran_me"), "w").close()
grader.notebook.points = lambda *args, **kwargs: 10.0
def weighted_sum(scores, values):
    raise NotImplementedError
"""


def nbgrader(course: Path, *args: str, check: bool = True, **extra_env: str) -> subprocess.CompletedProcess:
    # nbgrader starts its alembic script by name: the environment's bin first.
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""), **extra_env)
    env.pop("PYTHONPATH", None)  # nbgrader_config.py puts the course package there
    proc = python_m_grader(args, cwd=course, env=env, module="nbgrader")  # forked from the session's warm interpreter
    if check:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def answer_cell(nb: dict) -> dict:
    return next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))


def hand_in(course: Path, student: str, exercise: str, code: str | None) -> None:
    nb = json.loads((course / "release" / "attention" / BY_ID[exercise].notebook).read_text(encoding="utf-8"))
    if code is not None:
        answer_cell(nb)["source"] = code.splitlines(keepends=True)
    folder = course / "submitted" / student / "attention"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / BY_ID[exercise].notebook).write_text(json.dumps(nb), encoding="utf-8")


def hand_in_copied(course: Path, student: str) -> None:
    """What Jupyter lets a student do to nbgrader's cell metadata: ex0's
    answer cell copied (a first try above the answer, both with the answer
    cell's grade id), and ex4's answer cell's metadata changed (an old
    tool's schema version): nbgrader's own DeduplicateIds and
    CheckCellMetadata stopped the whole autograde on each."""
    for ex, reference_code in (("ex0_weighted_sum", reference("ex0_weighted_sum")), ("ex4_masking", reference("ex4_masking"))):
        hand_in(course, student, ex, reference_code)
    path = course / "submitted" / student / "attention" / BY_ID["ex0_weighted_sum"].notebook
    nb = json.loads(path.read_text(encoding="utf-8"))
    answer = answer_cell(nb)
    first_try = json.loads(json.dumps(answer))
    first_try["id"] = "first-try"
    first_try["source"] = ["def weighted_sum(scores, values):\n", "    return values.mean(-2)\n"]
    nb["cells"].insert(nb["cells"].index(answer), first_try)
    path.write_text(json.dumps(nb), encoding="utf-8")
    path = course / "submitted" / student / "attention" / BY_ID["ex4_masking"].notebook
    nb = json.loads(path.read_text(encoding="utf-8"))
    answer_cell(nb)["metadata"]["nbgrader"]["schema_version"] = 1
    path.write_text(json.dumps(nb), encoding="utf-8")


def reference(exercise: str) -> str:
    return (ROOT / "solutions" / BY_ID[exercise].filename).read_text(encoding="utf-8")


PAGE = page("teachers/nbgrader.md")
SECTION = "The unit as an nbgrader course"  # the page's title: the whole page


def readme_block(*words: str) -> list[list[str]]:
    """The commands of the page's one bash block that has all of ``words``."""
    (block,) = [b for b in blocks(SECTION, "bash", PAGE) if all(w in b for w in words)]
    return commands(block)


def make_course(here: Path, background: bool) -> dict:
    """A fresh copy of the project, where the page's teacher runs its
    commands up to the release (the grader is imported from that copy, as
    tox -e teacher does), with nbgrader's exchange in a folder of the test's,
    set as a hub sets it: in the Jupyter config folder's nbgrader_config.py;
    then the class handed in and graded (``grade_the_class``). Made early,
    in the background (``EARLY``), so the tests of the release alone see the
    course graded too: they read only source/ and release/, which grading
    leaves as they were."""
    copy_tracked(here / "attention")
    (here / "jupyter").mkdir()
    (here / "jupyter" / "nbgrader_config.py").write_text(f"c.Exchange.root = {str(here / 'exchange')!r}\n", encoding="utf-8")
    shell = Shell(here / "attention")
    shell.env["JUPYTER_CONFIG_DIR"] = str(here / "jupyter")
    said = {}
    for argv in readme_block("generate_assignment"):
        said[argv[1] if argv[0] == "nbgrader" else argv[0]] = shell.run(argv)
    made = {"shell": shell, "course": shell.cwd, "said": said, "here": here}
    grade_the_class(made)
    return made


EARLY = Early(make_course)  # started by conftest.py once the attack catalogue is graded


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return EARLY.result(tmp_path_factory.mktemp("teacher"))


@pytest.fixture(scope="module")
def course(project):
    """The course folder: the page's commands up to the release, then the class graded (``make_course``)."""
    return project["course"]


def fetch_and_submit(project, ex: str, code: str) -> str:
    """What a student does in the Assignments tab: fetch the release from the
    exchange, write ``ex``'s answer, submit. Their id is their user name."""
    from nbgrader.utils import get_username

    home = project["here"] / "student"
    home.mkdir()
    shell = Shell(home)
    shell.env = dict(project["shell"].env)
    shell.run(["nbgrader", "fetch_assignment", "attention", "--course", "attention"])
    path = home / "attention" / BY_ID[ex].notebook
    nb = json.loads(path.read_text(encoding="utf-8"))
    answer_cell(nb)["source"] = code.splitlines(keepends=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    shell.run(["nbgrader", "submit", "attention", "--course", "attention"])
    return get_username()


def grade_the_class(project: dict) -> None:
    """The class handed in (through the exchange as the page's hub does,
    by the page's copies, and by the test's), then the page's autograde,
    feedback and export, each command's output kept."""
    shell, said, course = project["shell"], project["said"], project["course"]
    for argv in readme_block("release_assignment", "collect"):
        if argv[1] == "collect":
            said["exchange student"] = fetch_and_submit(project, "ex0_weighted_sum", reference("ex0_weighted_sum"))
        said[argv[1]] = shell.run(argv)
    for argv in readme_block("mkdir", "cp"):
        shell.run(argv)
    for ex in HANDED_IN:
        hand_in(course, "reference", ex, reference(ex))
        hand_in(course, "untouched", ex, None)
    hand_in(course, "mistake", "ex0_weighted_sum", MISTAKE.read_text(encoding="utf-8"))
    hand_in(course, "mistake", "ex4_masking", reference("ex4_masking"))
    hand_in(course, "attacker", "ex0_weighted_sum", ATTACK)
    hand_in_copied(course, "copier")  # sorted before most of the class: it must not stop them
    for argv in readme_block("autograde", "export"):
        said[argv[1]] = shell.run(argv)


@pytest.fixture(scope="module")
def graded(project) -> Path:
    """The course folder once the class is graded (``grade_the_class``)."""
    return project["course"]


def test_source_notebooks_hold_the_reference_between_nbgraders_delimiters(course):
    for ex in IDS:
        nb = json.loads((course / "source" / "attention" / BY_ID[ex].notebook).read_text(encoding="utf-8"))
        code = "".join(answer_cell(nb)["source"])
        assert code.count("### BEGIN SOLUTION") == code.count("### END SOLUTION") >= 1
        assert code.replace("### ", "# ") == reference(ex).rstrip("\n")
        test = nb["cells"][-1]
        assert test["metadata"]["nbgrader"] == {
            "grade": True,
            "grade_id": f"test_{ex}",
            "locked": True,
            "points": float(BY_ID[ex].points),
            "schema_version": 3,
            "solution": False,
            "task": False,
        }
        assert "### BEGIN HIDDEN TESTS\nhidden = True\n### END HIDDEN TESTS" in "".join(test["source"])


def test_release_has_no_solution_and_no_hidden_tests(course):
    release = course / "release" / "attention"
    assert sorted(p.name for p in release.iterdir()) == sorted(BY_ID[ex].notebook for ex in IDS)
    assert find_leaks(str(release)) == []
    # The same search finds the solutions in the source notebooks: it reads notebooks.
    assert len(find_leaks(str(course / "source"))) >= len(IDS)
    for ex in IDS:
        nb = json.loads((release / BY_ID[ex].notebook).read_text(encoding="utf-8"))
        code = [line.strip() for line in "".join(answer_cell(nb)["source"]).splitlines()]
        stub = nbgrader_course.CODE_STUB.splitlines()
        assert any(code[i : i + len(stub)] == stub for i in range(len(code))), code
        test = "".join(nb["cells"][-1]["source"])
        assert "HIDDEN" not in test and "hidden = True" not in test
        assert test.rstrip().endswith(f'points("{ex}", hidden=hidden)')


def released_with(course: Path, folder: Path, ex: str, code: str) -> Path:
    """The release of ``ex`` with ``code`` in its answer cell, saved in ``folder`` under its own name."""
    nb = json.loads((course / "release" / "attention" / BY_ID[ex].notebook).read_text(encoding="utf-8"))
    answer_cell(nb)["source"] = code.splitlines(keepends=True)
    folder.mkdir()
    (folder / BY_ID[ex].notebook).write_text(json.dumps(nb), encoding="utf-8")
    return folder / BY_ID[ex].notebook


def test_validate_runs_the_public_checks_in_a_real_kernel(course, tmp_path):
    """The untouched release fails Validate; the reference passes it with
    the public checks alone (a release notebook runs no hidden check); the
    teacher's source notebook passes it with every check. A notebook that
    fails is told which checks it did not pass (nbgrader shows a test cell's
    stderr, never what it printed), with the mistake they found when they
    found one: a dtype lost in ex0, ex4's future filled with 0."""
    release = course / "release" / "attention" / "ex0_weighted_sum.ipynb"
    source = course / "source" / "attention" / "ex0_weighted_sum.ipynb"
    done = released_with(course, tmp_path / "done", "ex0_weighted_sum", reference("ex0_weighted_sum"))
    float32 = released_with(course, tmp_path / "float32", "ex0_weighted_sum", MISTAKE.read_text(encoding="utf-8"))
    zero = released_with(course, tmp_path / "zero", "ex4_masking", (MISTAKE.parent / "ex4_masking__filled_with_zero.py").read_text(encoding="utf-8"))
    proc = nbgrader(course, "validate", str(release), str(done), str(source), str(float32), str(zero), check=False)
    out = proc.stdout
    # nbgrader says how each notebook went, in the order they were given.
    parts = re.split(r"(?=VALIDATION FAILED ON|Success! Your notebook)", out)[1:]
    assert [p.split(" ", 1)[0] for p in parts] == ["VALIDATION", "Success!", "Success!", "VALIDATION", "VALIDATION"], out + proc.stderr
    assert "Partial credit" not in out
    untouched, float32_said, zero_said = (" ".join(parts[i].split()) for i in (0, 3, 4))
    for said in (untouched, float32_said, zero_said):
        assert "未通过的检查 / checks not passed:" in said and "the whole report: run this cell in the notebook" in said, said
    assert untouched.count("✗ ") == 5 and "✗ 文档里的例子：权重约 [0.665, 0.245, 0.090]" in untouched
    # The dtype check, and the domain's draws (float64 among them).
    assert float32_said.count("✗ ") == 2 and "✗ float64 进，float64 出 / the dtype is kept: float64 in, float64 out (0/1)" in float32_said
    assert "诊断 / found:" not in float32_said
    assert zero_said.count("诊断 / found:") == 1 and "You filled the future with 0: a 0 still gets weight after softmax" in zero_said


def test_the_readmes_commands_grade_what_reaches_submitted(project, graded):
    """The page's blocks as written: what its exchange's collect and its
    copies put in submitted/<student id>/attention/ is what autograde grades
    (the student who submitted ex0's reference through the exchange earns
    its points, ada what the page says, bob 0), and autograde says nothing
    about a student who handed everything in: no "checksum has changed"
    for the test cells the release cut the hidden part from, no SQLAlchemy
    warning; only "No submitted file" for each notebook not handed in."""
    said, student = project["said"], project["said"]["exchange student"]
    assert f"Collecting submission: {student} attention" in said["collect"].stderr
    collected = graded / "submitted" / student / "attention"
    assert sorted(p.name for p in collected.glob("*.ipynb")) == sorted(BY_ID[ex].notebook for ex in IDS)
    assert (collected / "timestamp.txt").is_file()
    got = grades(graded)
    readme_says = re.search(r"grades\.csv: ada (\d+), bob (\d+)", "\n".join(blocks(SECTION, "bash", PAGE)))
    assert (got["ada"], got["bob"]) == (TOTAL, 0) == tuple(float(n) for n in readme_says.groups())
    assert got[student] == BY_ID["ex0_weighted_sum"].points
    for who in ("ada", "bob", student):
        assert sorted(p.name for p in (graded / "feedback" / who / "attention").glob("*.html")) == sorted(f"{ex}.html" for ex in IDS)
    autograde = said["autograde"].stdout + said["autograde"].stderr
    assert "checksum" not in autograde and "Warning" not in autograde and "Traceback" not in autograde, autograde[-3000:]
    missing = re.findall(r"No submitted file: .*/submitted/([^/]+)/attention/(\w+)\.ipynb", autograde)
    assert sorted(set(who for who, _ in missing)) == ["attacker", "copier", "mistake", "reference", "untouched"]
    assert len(missing) == 5 * (len(IDS) - 2) + 1  # the attacker handed in one notebook
    warnings = [line for line in autograde.splitlines() if "| WARNING]" in line]
    assert len(warnings) == len(missing), warnings


def test_a_changed_test_cell_is_still_named(graded):
    """Restoring the hidden part silently is for a test cell exactly as
    released: a student who edits the cell still gets nbgrader's warning
    (and the teacher's cell back), here one of the two ways, a line added."""
    course = graded
    folder = course / "submitted" / "editor" / "attention"
    hand_in(course, "editor", "ex0_weighted_sum", reference("ex0_weighted_sum"))
    path = folder / BY_ID["ex0_weighted_sum"].notebook
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][-1]["source"] = ["points = lambda *a, **k: 10.0\n", *nb["cells"][-1]["source"]]
    path.write_text(json.dumps(nb), encoding="utf-8")
    proc = nbgrader(course, "autograde", "attention", "--student", "editor")
    said = proc.stdout + proc.stderr
    assert said.count("Attribute 'checksum' for cell test_ex0_weighted_sum has changed!") == 1, said[-3000:]
    assert "checksum' for cell test_ex4" not in said


def moved_course(tmp_path: Path, fresh_clone: Path) -> Path:
    """A course folder written inside a copy of the project, a student's ex0
    handed in, then the project moved elsewhere with it: the old paths are gone."""
    old = tmp_path / "old" / "attention"
    shutil.copytree(fresh_clone, old)
    proc = python_m_grader(["nbgrader", "--out", old / "course"], cwd=old, env={**os.environ, "PYTHONPATH": str(old)})
    assert proc.returncode == 0, proc.stderr
    nbgrader(old / "course", "generate_assignment", "attention")
    hand_in(old / "course", "lin", "ex0_weighted_sum", reference("ex0_weighted_sum"))
    shutil.move(tmp_path / "old", tmp_path / "moved")
    return tmp_path / "moved" / "attention" / "course"


def test_a_course_folder_moved_or_copied_finds_its_course_package(tmp_path, fresh_clone):
    """Moved with the project: found relative to the course folder. Copied
    alone to where no project is beside it (a hub): not found, and every
    command stops saying so, before anything is graded; found again where
    ATTENTION_PROJECT says, and one that names a folder without the hidden
    checks is refused."""
    course = moved_course(tmp_path, fresh_clone)
    nbgrader(course, "autograde", "attention")
    nbgrader(course, "export")
    assert grades(course)["lin"] == BY_ID["ex0_weighted_sum"].points
    hub = tmp_path / "hub" / "course"
    shutil.copytree(course, hub)
    shutil.rmtree(hub / "autograded")
    for extra in ({}, {"ATTENTION_PROJECT": str(tmp_path / "hub")}):
        proc = nbgrader(hub, "autograde", "attention", check=False, **extra)
        assert proc.returncode != 0
        assert "cannot find the course package (the folder with grader/ and checks/hidden/)" in proc.stderr, proc.stderr[-2000:]
        assert "set ATTENTION_PROJECT to its path" in proc.stderr and not (hub / "autograded").exists()
    nbgrader(hub, "autograde", "attention", ATTENTION_PROJECT=str(course.parent))
    nbgrader(hub, "export", ATTENTION_PROJECT=str(course.parent))
    assert grades(hub)["lin"] == BY_ID["ex0_weighted_sum"].points


def test_a_test_cell_run_by_autograde_in_a_kernel_scores_0(monkeypatch, capsys):
    """Should nbgrader_config.py lose GradeInSandbox, nbgrader's Execute runs
    the test cell in the kernel, after the answer cell: it then grades
    nothing and says why, rather than return what a kernel could fake."""
    from grader import notebook

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert notebook.points("ex0_weighted_sum", hidden=True) == 0.0
    assert "GradeInSandbox" in capsys.readouterr().out


def grades(course: Path) -> dict:
    """nbgrader export's grades.csv: student -> raw score."""
    return grades_of(course / "grades.csv", "attention")


def grades_of(path: Path, assignment: str) -> dict:
    with open(path, encoding="utf-8", newline="") as f:
        return {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader(f) if r["assignment"] == assignment}


def graded_by_grader(folder: Path, *only: str) -> float:
    out = folder / "results.json"
    python_m_grader(["grade", folder, "--json", out, *only], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(out.read_text(encoding="utf-8"))["score"]


def test_autograde_scores_what_the_grader_gives_the_same_notebooks(graded, tmp_path):
    got = grades(graded)
    full = sum(BY_ID[ex].points for ex in HANDED_IN)
    assert got["reference"] == full
    assert got["untouched"] == 0
    assert got["attacker"] == 0
    assert 0 < got["mistake"] < full
    assert got["copier"] == full  # every copy graded in order: the later definition is the one that counts
    for student in ("reference", "mistake", "copier"):
        copy = tmp_path / student
        copy.mkdir()
        for nb in (graded / "submitted" / student / "attention").glob("*.ipynb"):
            (copy / nb.name).write_bytes(nb.read_bytes())
        assert got[student] == graded_by_grader(copy), student


def test_the_mistake_loses_the_same_points_through_check_batch_and_autograde(graded, tmp_path):
    """The same notebooks, three ways: nbgrader autograde, check() (what a
    student runs in the notebook) and batch (nbgrader's submitted/ folder,
    which batch reads as DIR/<id>/<assignment>/)."""
    from grader.notebook import check

    autograde = grades(graded)
    out = tmp_path / "batch"
    proc = python_m_grader(["batch", graded / "submitted", "--out", out, "--no-report"], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out / "grades.csv", encoding="utf-8", newline="") as f:
        batch = {r["student_id"]: r for r in csv.DictReader(f)}
    for student, total in autograde.items():
        assert float(batch[student]["total"]) == total, student
    folder = graded / "submitted" / "mistake" / "attention"
    for ex in HANDED_IN:
        assert check(ex, str(folder)).score == float(batch["mistake"][ex]), ex
    assert float(batch["mistake"]["ex0_weighted_sum"]) < BY_ID["ex0_weighted_sum"].points


def test_a_copied_or_changed_cell_is_graded_and_named(graded):
    for ex, copied in (("ex0_weighted_sum", "answer_ex0_weighted_sum"), ("ex4_masking", "answer_ex4_masking")):
        nb = json.loads((graded / "autograded" / "copier" / "attention" / BY_ID[ex].notebook).read_text(encoding="utf-8"))
        said = "".join("".join(o.get("text", "")) for o in nb["cells"][-1]["outputs"] if o["output_type"] == "stream")
        assert "cell metadata was copied or changed (" + copied in said, said[:500]
        assert "复制或改动过" in said


def test_the_note_on_copied_cells_shows_a_students_grade_id_escaped():
    """A grade id is the student's own text: control characters in the note
    the report carries are shown as escapes (the report's HTML and Markdown
    escape the rest)."""
    import nbformat

    from grader.teacher.platforms import nbgrader_autograde

    nb = nbformat.v4.new_notebook()
    nb.metadata["attention_notes"] = ["answer_ex0_weighted_sum\x1b[2J\x07owned"]
    said = nbgrader_autograde._notes_of(nb)
    assert "\x1b" not in said and "\x07" not in said
    assert "\\x1b[2J" in said


def test_autograde_runs_no_answer_cell_in_a_kernel(graded):
    assert not list(graded.rglob("the_kernel_ran_me"))
    nb = json.loads((graded / "autograded" / "attacker" / "attention" / "ex0_weighted_sum.ipynb").read_text(encoding="utf-8"))
    assert all(not c.get("outputs") for c in nb["cells"][:-1] if c["cell_type"] == "code")
    value = nb["cells"][-1]["outputs"][-1]
    assert value["output_type"] == "execute_result" and "".join(value["data"]["text/plain"]) == "0.0"


def _text(path: Path) -> str:
    """An HTML page's text, as a reader sees it."""
    page = re.sub(r"(?s)<(script|style).*?</\1>", "", path.read_text(encoding="utf-8"))
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_feedback_shows_the_report_and_no_hidden_input(graded, tmp_path):
    page = _text(graded / "feedback" / "mistake" / "attention" / "ex0_weighted_sum.html")
    assert "7 / 10" in page and "float64 进，float64 出" in page  # the report, with the public check's feedback
    assert "HIDDEN TESTS" not in page and "hidden = True" not in page
    # The teacher's report of the same notebook quotes what the hidden checks
    # tried; the student's feedback says that they failed, not on what.
    copy = tmp_path / "mistake"
    copy.mkdir()
    (copy / "ex0_weighted_sum.ipynb").write_bytes((graded / "submitted" / "mistake" / "attention" / "ex0_weighted_sum.ipynb").read_bytes())
    graded_by_grader(copy, "--only", "ex0_weighted_sum")
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    hidden = [t for t in results["tests"] if "hidden" in t["tags"] and t["status"] != "passed"]
    assert hidden, "the mistake fails a hidden check"
    for t in hidden:
        tested = next(line for line in t["output"].splitlines() if line.strip().startswith("测试 / tested:"))
        assert tested.strip() not in page
        assert t["name"].split(": ", 1)[-1].split(" / ")[0] in page


def test_the_readme_batch_adds_a_class_beside_nbgraders_assignment(project, graded, tmp_path):
    """The page's last block: batch --db into the gradebook nbgrader
    autograde wrote, whose rows all stay as they were."""
    from test_batch_db import rows

    url = f"sqlite:///{graded / 'gradebook.db'}"
    before = rows(url)
    for argv in readme_block("--db"):
        project["shell"].run(argv)
    after = rows(url)
    for table, old in before.items():
        assert old <= after[table], f"{table}: a row of nbgrader's gradebook changed"
    nbgrader(graded, "export", "--to", str(tmp_path / "both.csv"))
    exported = (tmp_path / "both.csv").read_text(encoding="utf-8")
    assert "\nattention,," in exported and "\nattention-files,," in exported
    # nbgrader lists every student under every assignment: the class's under
    # attention with 0, the notebooks' students under attention-files with 0.
    autograded, both = grades(graded), grades_of(tmp_path / "both.csv", "attention")
    assert {s: both[s] for s in autograded} == autograded
    files = grades_of(tmp_path / "both.csv", "attention-files")
    assert files["anna"] == TOTAL and files["reference"] == 0
