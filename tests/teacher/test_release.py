"""The student edition (``python -m grader release``): nothing of the solutions
or of the hidden checks in it, and inside it the grader works on its own,
replaying recorded reference answers."""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from catalogue_marks import marked
from conftest import EXERCISES, ROOT, SOLUTIONS, make_submission, python_m_grader, run_cli
from environments import environment
from readme_sections import markdown_links
from results_schema import valid

from grader.authoring.regions import solution_regions
from grader.exercises import IDS

CHECKS = os.path.join(ROOT, "checks")
WRONG = Path(ROOT) / "tests" / "catalogue" / "wrong"

# Lines of solution regions that the course publishes on purpose, so they may
# appear in the release: the contract of ex5's Head (stated in its docstring,
# and the grader's stand-in Head in grader/child/standins.py has the same
# attributes), and ex6's head size (said in a public check's hint).
PUBLISHED = {
    "self.key = nn.Linear(n_embd, head_size, bias=False)",
    "self.query = nn.Linear(n_embd, head_size, bias=False)",
    "self.value = nn.Linear(n_embd, head_size, bias=False)",
    "head_size = n_embd // n_head",
}
MIN_CODE = 16  # shorter code lines (``return x``, ``nn.ReLU(),``) prove nothing either way
PROSE = re.compile(r"[A-Za-z]{3,}")  # a comment with three words explains; one of shapes like (B, T, C) does not

# Two submissions of wrong implementations (each caught by a public check),
# one per exercise each, graded in the release by its command line: the files
# marked "release-set-1" and "release-set-2" (tests/support/catalogue_marks.py).
WRONG_SETS = [marked("release-set-1"), marked("release-set-2")]
CHECK_BROKE = ("please tell your teacher", "检查本身出错", "no recorded reference answer")


def _env(release) -> dict:
    return environment(None, PYTHONDONTWRITEBYTECODE="1")  # the release tree stays as built


def in_release(release, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m grader ARGS`` with the release as the working folder, as a student runs it."""
    return python_m_grader(args, cwd=release, env=_env(release), timeout=timeout)


def grade_in_release(release, folder, out) -> tuple[dict, subprocess.CompletedProcess]:
    """Grade ``folder`` (relative to the release, or absolute); results.json goes to ``out``, outside the release."""
    out = str(out)
    proc = in_release(release, "grade", str(folder), "--json", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "grader error" not in proc.stdout and "评分程序出错" not in proc.stdout, proc.stdout
    with open(out, encoding="utf-8") as f:
        results = valid(json.load(f))
    for t in results["tests"]:
        assert not any(s in t["output"] for s in CHECK_BROKE), (t["name"], t["output"])
    return results, proc


def all_files(release):
    """(name, bytes) of every file in the release folder and in its zip."""
    for dirpath, _, filenames in os.walk(release):
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                yield os.path.relpath(path, release), f.read()
    with zipfile.ZipFile(str(release) + ".zip") as z:
        for info in z.infolist():
            yield "zip:" + info.filename, z.read(info)


def function_names(folder) -> set:
    names = set()
    for path in Path(folder).glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
    return names


def solution_needles() -> set:
    """Code and comments of the solution regions, line by line, that nothing public may contain."""
    needles = set()
    for ex in IDS:
        source = open(os.path.join(SOLUTIONS, ex + ".py"), encoding="utf-8").read()
        stub = open(os.path.join(EXERCISES, ex + ".py"), encoding="utf-8").read()
        regions = solution_regions(source)
        assert regions, ex
        for region in regions:
            for line in region.splitlines():
                code, _, comment = line.partition("#")
                code, comment = code.strip(), comment.strip()
                if len(code) >= MIN_CODE and code not in PUBLISHED and code not in stub:
                    needles.add(code)
                if len(PROSE.findall(comment)) >= 3 and comment not in stub:
                    needles.add(comment)
    return needles


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "attention"
    out.mkdir()  # an empty folder may be built into
    proc = run_cli("release", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def public_max() -> dict:
    """Public points per exercise, read from the checks' markers (the release must agree)."""
    out = {}
    for ex in IDS:
        tree = ast.parse(open(os.path.join(CHECKS, "public", f"test_{ex}.py"), encoding="utf-8").read())
        out[ex] = sum(
            d.args[0].value
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
            for d in n.decorator_list
            if isinstance(d, ast.Call) and getattr(d.func, "attr", None) == "points"
        )
    return out


def test_release_has_what_students_need_and_nothing_else(release):
    files = {rel for rel, _ in all_files(release) if not rel.startswith("zip:")}
    assert {f"exercises/{ex}.py" for ex in IDS} <= files
    assert {f"checks/public/test_{ex}.py" for ex in IDS} <= files
    assert {"checks/pytest.ini", "checks/public/reference_answers.pt", "checks/hidden_points.json", "tox.ini", "README.md"} <= files
    assert {"grader/__main__.py", "grader/cli.py", "grader/engine/grading.py", "grader/engine/recorded.py"} <= files
    tops = {f.split("/")[0] for f in files}
    assert tops == {"exercises", "checks", "grader", "experiments", "notebooks", "tox_install", "write", "tox.ini", "README.md", "pyproject.toml"}
    assert {f"notebooks/{ex}.ipynb" for ex in IDS} <= files  # tox -e lab opens them
    assert {f"experiments/{ex}_experiment.py" for ex in IDS} <= files  # each docs page's {experiment} runs there too
    assert {"write/__main__.py", "write/corpus.py", "write/corpus.txt"} <= files  # tox -e write, and the text it learns from
    assert not [f for f in files if f.startswith("checks/hidden/")]
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc") or "/." in "/" + f]
    # The student edition is grader/ without teacher/, and every other layer whole.
    assert not [f for f in files if f.startswith("grader/teacher/")]
    shipped = {p.relative_to(ROOT).as_posix() for p in Path(ROOT, "grader").rglob("*.py") if "__pycache__" not in p.parts}
    assert {f for f in shipped if not f.startswith("grader/teacher/")} == {f for f in files if f.startswith("grader/")}
    for ex in IDS:  # the stubs are the project's stubs
        assert (release / "exercises" / f"{ex}.py").read_bytes() == Path(EXERCISES, ex + ".py").read_bytes()


def test_zip_holds_the_same_tree(release):
    with zipfile.ZipFile(str(release) + ".zip") as z:
        zipped = {info.filename: z.read(info) for info in z.infolist() if not info.is_dir()}
    folder = {rel: data for rel, data in all_files(release) if not rel.startswith("zip:")}
    assert zipped == {f"attention/{rel}": data for rel, data in folder.items()}
    leftovers = [p for p in os.listdir(release.parent) if p.startswith(".")]
    assert not leftovers  # nothing half-written beside it


def _published_experiment(rel: str) -> bool:
    """experiments/ is shown in full on the student site (each page's {experiment}):
    its plain-torch lines may match single lines of a solution (``B, T = idx.shape``)."""
    return rel.removeprefix("zip:attention/").startswith("experiments/")


def _searched(rel: str, data: bytes) -> bytes:
    """What of a file the line search reads: a notebook's cells as text (its
    JSON escapes quotes and line ends), without the experiment's cell, which
    is experiments/ again (see _published_experiment)."""
    if not rel.endswith(".ipynb"):
        return data
    experiments = {p.read_text(encoding="utf-8").rstrip("\n") for p in Path(ROOT, "experiments").glob("*.py")}
    cells = ["".join(c["source"]) for c in json.loads(data)["cells"]]
    return "\n".join(c for c in cells if c not in experiments).encode()


def test_no_solution_code_anywhere(release):
    needles = solution_needles()
    assert len(needles) > 20  # the search is not vacuous
    leaks = [(rel, n) for rel, data in all_files(release) if not _published_experiment(rel) for text in [_searched(rel, data)] for n in needles if n.encode() in text]
    assert not leaks
    # The notebooks were searched as their cells, the experiment's left out.
    notebook = (release / "notebooks" / "ex0_weighted_sum.ipynb").read_bytes()
    assert b"softmax" in notebook and b"raise NotImplementedError" in _searched("notebooks/ex0_weighted_sum.ipynb", notebook)


def test_experiments_hold_no_whole_solution(release):
    """What the line-by-line search above lets pass in experiments/, the release's own
    guard still refuses: all the code of a solution region, in order."""
    from grader.teacher.edition.release import find_leaks

    assert (release / "experiments").is_dir()
    assert not find_leaks(str(release / "experiments"))


def test_no_hidden_check_names_anywhere(release):
    hidden = function_names(os.path.join(CHECKS, "hidden")) - function_names(os.path.join(CHECKS, "public"))
    assert hidden
    leaks = [(rel, n) for rel, data in all_files(release) for n in hidden if n.encode() in data]
    assert not leaks


def test_hidden_points_are_per_exercise_and_only_points(release, full_marks, public_max):
    points = json.loads((release / "checks" / "hidden_points.json").read_text(encoding="utf-8"))
    assert set(points) == set(IDS)
    assert all(isinstance(p, (int, float)) for p in points.values())
    assert {ex: public_max[ex] + points[ex] for ex in IDS} == full_marks


def test_tox_ini_has_grade_and_write_and_the_same_pins(release):
    import configparser

    student = configparser.ConfigParser(interpolation=None)
    student.read(release / "tox.ini", encoding="utf-8")
    main = configparser.ConfigParser(interpolation=None)
    main.read(os.path.join(ROOT, "tox.ini"), encoding="utf-8")
    assert [s for s in student.sections() if s.startswith("testenv")] == ["testenv", "testenv:grade", "testenv:lab", "testenv:write"]
    # Every environment: the first install seen, the CPU build of torch, one torch on disk.
    every = student["testenv"]
    assert every["install_command"].strip() == main["testenv"]["install_command"].strip()
    assert every["commands_pre"].strip() == main["testenv"]["commands_pre"].strip() == "python -m tox_install.shared_installs {work_dir}"
    assert {"PIP_*", "ATTENTION_TORCH_INDEX"} <= set(every["pass_env"].split())
    for helper in ("pip_install.py", "shared_installs.py", "__init__.py"):
        assert (release / "tox_install" / helper).is_file(), helper
    lab = student["testenv:lab"]  # JupyterLab on notebooks/ (tests/student/test_lab.py runs it)
    assert lab["deps"].split() == main["base"]["deps"].split() + [d for d in main["testenv:lab"]["deps"].split() if not d.startswith("{")]
    assert lab["commands"].strip() == main["testenv:lab"]["commands"].strip()
    assert "--ServerApp.allow_root=True" in lab["commands"]  # a student who is root (a container, a lab machine) gets JupyterLab too
    grade = student["testenv:grade"]
    assert grade["deps"].split() == main["base"]["deps"].split()
    assert grade["commands"].strip() == main["testenv:grade"]["commands"].strip() == "python -m grader grade --exit-code {posargs:exercises}"
    assert "install_command" not in grade and "tox_install/pip_install.py" in every["install_command"]
    write = student["testenv:write"]
    assert write["deps"].split() == main["base"]["deps"].split() + [d for d in main["testenv:write"]["deps"].split() if not d.startswith("{")]
    assert write["commands"].strip() == main["testenv:write"]["commands"].strip()
    text = (release / "tox.ini").read_text(encoding="utf-8")
    assert "PIP_EXTRA_INDEX_URL" not in text  # a variable would replace pip.conf's own extra-index-url


def test_readme_is_for_students(release):
    text = (release / "README.md").read_text(encoding="utf-8")
    for must in (
        "tox -e grade",
        "tox -e grade -- --only ex4_masking",
        "tox -e write",
        "python experiments/ex0_weighted_sum_experiment.py",
        "由老师评分",
        "graded by your teacher",
        "](",
        "尚未完成",
    ):
        assert must in text, must
    for never in ("solutions", "hidden/", "tox -e test", "grader.teacher.stubs"):
        assert never not in text, never


def test_cli_in_release_offers_only_grade(release):
    helped = in_release(release, "--help")
    assert helped.returncode == 0, helped.stderr
    assert "grade" in helped.stdout
    for verb in ("batch", "release", "gradescope"):
        assert verb not in helped.stdout
    assert in_release(release, "release", "--out", "x").returncode == 2
    where = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"], cwd=release, env=_env(release), capture_output=True, text=True)
    assert Path(where.stdout.strip()).parent == release / "grader"  # the release's own grader


def test_stubs_score_0_in_release(release, tmp_path):
    results, proc = grade_in_release(release, "exercises", tmp_path / "results.json")
    assert results["score"] == 0
    assert all("not implemented yet" in t["output"] for t in results["tests"])
    assert all(t["tags"][1] == "public" for t in results["tests"])


def test_solutions_score_every_public_point_in_release(release, full_marks, public_max, tmp_path):
    folder = make_submission(tmp_path / "mine")  # outside the release: it must not find them by path
    results, proc = grade_in_release(release, folder, tmp_path / "results.json")
    assert results["score"] == sum(public_max.values())
    assert all(t["status"] == "passed" for t in results["tests"])
    hidden = sum(full_marks.values()) - sum(public_max.values())
    assert f"隐藏检查的分数，共 {hidden:g} 分，由老师评分" in proc.stdout
    assert f"points of hidden checks, {hidden:g} in all: graded by your teacher" in proc.stdout
    assert f"{public_max['ex6_block']:g} / {public_max['ex6_block']:g} (+{full_marks['ex6_block'] - public_max['ex6_block']:g})" in proc.stdout


@pytest.mark.parametrize("wrong", WRONG_SETS, ids=["set1", "set2"])
def test_wrong_implementations_graded_in_release(release, public_max, tmp_path, wrong):
    folder = make_submission(tmp_path / "wrong", {ex: (WRONG / f"{name}.py").read_text(encoding="utf-8") for ex, name in wrong.items()})
    results, _ = grade_in_release(release, folder, tmp_path / "results.json")
    for ex in IDS:
        got = sum(t["score"] for t in results["tests"] if t["tags"][0] == ex)
        assert got < public_max[ex], (ex, wrong[ex])


def test_replay_agrees_with_the_reference_on_the_whole_wrong_catalogue(release, tmp_path):
    """Every wrong implementation, graded in this process with the release's
    checks and recorded answers, gets the same public verdicts as with the
    real reference: no request misses the recorded book."""
    from grader.engine.grading import Grader, Job

    replaying = Grader(checks_dir=str(release / "checks"), solutions_dir=str(release / "solutions"))
    # The reference on the inputs as written, which the release recorded (a
    # teacher's grading draws other inputs).
    grader = Grader(inputs_seed=0, many=True)
    verdicts = lambda g: [(r.check_id, r.passed, r.points, r.feedback) for r in g.results]  # noqa: E731 - a one-line helper
    try:
        for ex in IDS:  # each exercise's files in one pytest session of each grader, as a batch grades
            paths = [p for p in sorted(WRONG.glob("*.py")) if p.name.split("__")[0] == ex]
            folders = {p: make_submission(tmp_path / p.stem, {ex: p.read_text(encoding="utf-8")}) for p in paths}
            replayed, real = {}, {}
            replaying.grade_each([Job(f, key=p) for p, f in folders.items()], lambda job, g: replayed.__setitem__(job.key, g), only=ex)
            grader.grade_each([Job(f, key=p) for p, f in folders.items()], lambda job, g: real.__setitem__(job.key, g), only=ex, public_only=True)
            for path in paths:
                assert not isinstance(replayed[path], BaseException) and not isinstance(real[path], BaseException), path.name
                assert not replayed[path].errors, (path.name, replayed[path].errors)
                assert verdicts(replayed[path]) == verdicts(real[path]), path.name
                assert not [r for r in replayed[path].results if any(s in r.feedback for s in CHECK_BROKE)], path.name
    finally:
        replaying.close()
        grader.close()


def test_refuses_a_folder_that_is_not_empty(tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    proc = run_cli("release", "--out", str(out))
    assert proc.returncode == 2
    assert "exists and is not an empty folder" in proc.stderr and "不是空文件夹" in proc.stderr
    assert os.listdir(out) == ["notes.txt"]
    assert sorted(os.listdir(tmp_path)) == ["taken"]  # no zip, no temporary folder


def test_the_build_refuses_leaks(tmp_path):
    """The release's own guard (run before anything is written) finds a
    solution or a hidden check's name wherever it is."""
    from grader.teacher.edition.release import find_leaks

    (tmp_path / "a").mkdir()
    shutil.copy(os.path.join(SOLUTIONS, "ex5_head.py"), tmp_path / "a" / "copied.py")
    reindented = open(os.path.join(SOLUTIONS, "ex2_scores.py"), encoding="utf-8").read().replace("        ", "  ")
    (tmp_path / "b.txt").write_text(reindented, encoding="utf-8")
    hidden = sorted(function_names(os.path.join(CHECKS, "hidden")) - function_names(os.path.join(CHECKS, "public")))
    (tmp_path / "notes.md").write_text(f"see {hidden[0]}", encoding="utf-8")
    shutil.copy(os.path.join(EXERCISES, "ex5_head.py"), tmp_path / "stub.py")  # a stub is not a leak
    found = find_leaks(str(tmp_path))
    assert any(f.startswith(os.path.join("a", "copied.py") + ": the solution of ex5_head") for f in found)
    assert "b.txt: the solution of ex2_scores" in found
    assert f"notes.md: hidden check {hidden[0]}" in found
    assert not [f for f in found if f.startswith("stub.py")]


@pytest.mark.parametrize("verb", ["release", "gradescope"])
def test_nothing_is_built_from_solutions_that_fail_a_check(tmp_path, verb):
    """Both packages go through one gate: solutions that fail a check (here
    ex4's mask fills the future with 0) are a broken course, and neither the
    student edition nor the Gradescope bundle is written from it."""
    import importlib

    from grader.teacher.edition.packaging import BuildError

    project = tmp_path / "course"
    for folder in ("grader", "solutions", "checks", "tox_install"):
        shutil.copytree(os.path.join(ROOT, folder), project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(ROOT, "tox.ini"), project)
    mask = project / "solutions" / "ex4_masking.py"
    source = mask.read_text(encoding="utf-8")
    assert 'float("-inf")' in source
    mask.write_text(source.replace('float("-inf")', "0.0"), encoding="utf-8")

    built = tmp_path / "built"
    out = built / ("attention" if verb == "release" else "autograder.zip")
    with pytest.raises(BuildError) as refused:
        importlib.import_module({"release": "grader.teacher.edition.release", "gradescope": "grader.teacher.platforms.gradescope"}[verb]).build(str(out), project=str(project))
    assert "ex4_masking: test_" in refused.value.en and "参考答案没有通过全部检查" in refused.value.zh
    assert not os.path.exists(built) or os.listdir(built) == []  # nothing, not even a temporary file


def test_student_readme_takes_readme_md_blocks(tmp_path):
    """The release's README says what README.md says to students in README.md's
    own words (its marked blocks), without the markers; a README.md that lost a
    block stops the build."""
    from grader.teacher.edition.packaging import BuildError
    from grader.teacher.edition.student_readme import shared_blocks, student_readme

    blocks = shared_blocks(ROOT)
    assert {"intro", "requirements", "cpu-build"} <= set(blocks)
    text = student_readme(13, ROOT)
    for name, body in blocks.items():
        assert body and body in text, name
    assert "student-readme" not in text
    assert "tox.wiki" in text and "download.pytorch.org/whl/cpu" in text
    readme = Path(ROOT, "README.md").read_text(encoding="utf-8")
    (tmp_path / "README.md").write_text(readme.replace("<!-- student-readme: cpu-build -->", ""), encoding="utf-8")
    with pytest.raises(BuildError, match="cpu-build"):
        student_readme(13, str(tmp_path))


# --- links: every one goes somewhere that exists -------------------------------


def release_links(release: Path) -> list[tuple[str, str]]:
    """(file, target) of every link of the release's README and of its notebooks' Markdown cells."""
    found = [("README.md", t) for t in markdown_links((release / "README.md").read_text(encoding="utf-8"))]
    for path in sorted((release / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        found += [(f"notebooks/{path.name}", t) for t in markdown_links(text)]
    return found


def assert_every_link_resolves(release: Path, docs_url: str | None) -> list[tuple[str, str]]:
    """A relative link names a file or folder of the release; an absolute one
    goes to the course site at ``docs_url``, or is one of the third-party
    sites README.md's own blocks for students link (tox's); the links found."""
    from grader.teacher.edition.student_readme import shared_blocks

    third_party = {t for body in shared_blocks(ROOT).values() for t in markdown_links(body) if "://" in t}
    links = release_links(release)
    for where, target in links:
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
            assert (docs_url and target.startswith(docs_url)) or target in third_party, (where, target)
        else:
            path = (release / where).parent / re.split(r"[?#]", target)[0]
            assert path.resolve().is_relative_to(release.resolve()) and path.exists(), f"{where}: dead link {target}"
    return links


def test_without_docs_url_no_link_is_dead(release):
    """The release has no docs/: without --docs-url its README and notebooks
    name the course notes and each page without a link, and say where to ask."""
    links = assert_every_link_resolves(release, None)
    assert not [t for where, t in links if where.startswith("notebooks/")]
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert "ask your teacher for the course site's address" in readme and "网址请问老师" in readme
    for ex in IDS:
        title = json.loads((release / "notebooks" / f"{ex}.ipynb").read_text(encoding="utf-8"))["cells"][0]
        assert f"The page: {ex}" in "".join(title["source"]) and "ask your teacher for its address" in "".join(title["source"])


@pytest.mark.parametrize("docs_url", ["https://example.org/attention/", "http://course.example.edu/ai/attention"])
def test_with_docs_url_the_links_go_to_the_sites_pages(docs_url, tmp_path):
    """``release --docs-url URL``: the README's course notes and each
    notebook's page link go to the site; nothing else is linked but tox's
    site, and no relative link is dead."""
    out = tmp_path / "attention"
    proc = run_cli("release", "--out", str(out), "--docs-url", docs_url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    links = assert_every_link_resolves(out, docs_url)
    site = docs_url.rstrip("/")
    for ex in IDS:
        assert [t for where, t in links if where == f"notebooks/{ex}.ipynb"] == [f"{site}/path/{ex}.html"]
    assert docs_url in [t for where, t in links if where == "README.md"]


@pytest.mark.parametrize("docs_url", ["docs/", "../site/attention"])
def test_a_docs_url_that_is_not_an_address_is_refused(docs_url, tmp_path):
    """A relative --docs-url would link into a docs/ the release does not hold."""
    out = tmp_path / "attention"
    proc = run_cli("release", "--out", str(out), "--docs-url", docs_url)
    assert proc.returncode == 2
    assert "--docs-url takes the course site's full address (https://...)" in proc.stderr and "完整网址" in proc.stderr
    assert os.listdir(tmp_path) == []


def test_jupyters_checkpoints_stay_out_of_the_release(tmp_path):
    """JupyterLab keeps a copy of each file a teacher edits in it in
    .ipynb_checkpoints/ beside the file, as ``-checkpoint.py``: none is copied."""
    from grader.teacher.edition.release import build

    project = tmp_path / "course"
    for folder in ("grader", "tox_install", "solutions", "checks", "exercises", "experiments", "write", "docs/path"):
        shutil.copytree(os.path.join(ROOT, folder), project / folder, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    for name in ("tox.ini", "README.md"):
        shutil.copy(os.path.join(ROOT, name), project)
    planted = ["grader", "grader/engine", "experiments", "checks/public", "write"]
    for folder in planted:
        (project / folder / ".ipynb_checkpoints").mkdir()
        (project / folder / ".ipynb_checkpoints" / "edited-checkpoint.py").write_text("# JupyterLab's copy\n", encoding="utf-8")
    out = tmp_path / "built" / "attention"
    build(str(out), project=str(project))
    files = [rel for rel, _ in all_files(out)]
    assert "grader/engine/grading.py" in files and "zip:attention/experiments/ex0_weighted_sum_experiment.py" in files
    assert not [rel for rel in files if ".ipynb_checkpoints" in rel or "checkpoint" in rel]
