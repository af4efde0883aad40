"""GitHub Classroom: the student edition's workflow (``release
--github-classroom``), its grading step's result as the classroom's reporter
reads it, and ``batch`` on a folder of cloned student repositories.

docs/teachers/github_classroom.md's blocks run as written, in order, in one
folder: ``tox`` and ``gh`` are stand-ins on PATH (``tox -e teacher -- ARGS``
is ``python -m grader ARGS``, as tox.ini's teacher environment runs it;
``gh classroom clone student-repos`` clones made-up student repositories
into the layout the gh-classroom extension makes, and ``gh api`` answers
from made-up push records through jq, as gh's ``--jq`` does)."""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from catalogue_marks import marked
from conftest import ROOT, SOLUTIONS, python_m_grader
from environments import environment
from readme_sections import blocks, page

from grader.exercises import EXERCISES as TABLE
from grader.exercises import IDS
from grader.teacher.edition.packaging import tox_base_deps
from grader.teacher.intake import classroom_repos
from grader.teacher.late.lateness import GIT_COMMIT
from grader.teacher.platforms import classroom_workflow

PAGE = page("teachers/github_classroom.md")
SECTION = "GitHub Classroom autograding"  # the page's title: blocks() of the whole page
WRONG = Path(ROOT) / "tests" / "catalogue" / "wrong"
PUBLIC = sum(e.public for e in TABLE)
SLUG = "attention"  # the assignment's slug: gh-classroom clones into <slug>-submissions/
TEMPLATE_DATE = "2026-12-01T09:00:00+08:00"

FAKE_TOX = """#!/bin/sh
# tox -e teacher -- ARGS: tox.ini's teacher environment runs python -m grader ARGS with PYTHONPATH its root.
[ "$1 $2 $3" = "-e teacher --" ] || {{ echo "stand-in tox cannot run: tox $*" >&2; exit 99; }}
shift 3
PYTHONPATH={root} exec {python} -m grader "$@"
"""

FAKE_GH = '''#!{python}
"""gh, as far as the page uses it."""
import os, re, subprocess, sys
args = sys.argv[1:]
if args[:3] == ["classroom", "clone", "student-repos"] and args[3] == "-a":
    # student-repos.go: <directory>/<slug>-submissions/<repository name>, each by `gh repo clone`.
    target = os.path.abspath("{slug}-submissions")
    os.makedirs(target, exist_ok=True)
    origins = os.environ["FAKE_GH_REPOS"]
    for name in sorted(os.listdir(origins)):
        print("Cloning into:", os.path.join(target, name))
        subprocess.run(["git", "clone", "-q", os.path.join(origins, name), os.path.join(target, name)], check=True)
    sys.exit(0)
m = re.fullmatch(r"repos/ORG/([^/]+)/activity\\?per_page=100", args[1]) if args[:1] == ["api"] else None
if m and args[2] == "--jq":
    path = os.path.join(os.environ["FAKE_GH_ACTIVITY"], m.group(1) + ".json")
    data = open(path).read() if os.path.exists(path) else "[]"
    sys.exit(subprocess.run(["jq", "-r", args[3]], input=data, text=True).returncode)
print("stand-in gh cannot run: gh", *args, file=sys.stderr)
sys.exit(99)
'''


def _env(bin_dir: Path, **more) -> dict:
    path = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return environment(None, PATH=path, PYTHONDONTWRITEBYTECODE="1", **more)  # the release stays as built


def _bash(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{script}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _git(repo: Path, *args: str, date: str = TEMPLATE_DATE) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", "user.name=Student", "-c", "user.email=student@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *ident, *args], cwd=repo, env=env, check=True, capture_output=True)


def _head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def _wrong(kind: str) -> dict:
    return {ex: (WRONG / f"{stem}.py").read_text(encoding="utf-8") for ex, stem in marked(kind).items()}


def _solutions() -> dict:
    return {ex: Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8") for ex in IDS}


def _student_repo(release: Path, origin: Path, files: dict, commit_date: str | None, top_level: bool = False) -> str:
    """A student's repository made from the starter (the release, one
    commit), with ``files`` written in a second commit dated ``commit_date``
    (none: the starter untouched); ``top_level``: the files moved out of
    exercises/ to the repository's top. Returns HEAD."""
    shutil.copytree(release, origin)
    _git(origin, "init", "-q")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "Initial commit")
    if commit_date is not None:
        if top_level:
            shutil.rmtree(origin / "exercises")
        for ex, source in files.items():
            (origin / ("" if top_level else "exercises") / f"{ex}.py").write_text(source, encoding="utf-8")
        _git(origin, "add", "-A")
        _git(origin, "commit", "-q", "-m", "my work", date=commit_date)
    return _head(origin)


@pytest.fixture(scope="module")
def readme_class(tmp_path_factory):
    """The page's blocks run in order in one folder, with four students'
    repositories to clone in between: what each block did."""
    if shutil.which("git") is None or shutil.which("jq") is None:
        # .ci/run installs both: there the missing tool is a failure, not a skip.
        (pytest.fail if os.environ.get("ATTENTION_CI") else pytest.skip)("needs git and jq (gh's --jq is jq's language)")
    tmp = tmp_path_factory.mktemp("classroom")
    bin_dir, here, origins, activity = tmp / "bin", tmp / "teacher", tmp / "origins", tmp / "activity"
    for d in (bin_dir, here, origins, activity):
        d.mkdir()
    (bin_dir / "tox").write_text(FAKE_TOX.format(root=ROOT, python=sys.executable))
    (bin_dir / "gh").write_text(FAKE_GH.format(python=sys.executable, slug=SLUG))
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = _env(bin_dir, FAKE_GH_REPOS=str(origins), FAKE_GH_ACTIVITY=str(activity))
    release_block, clone_block, times_block, batch_block = blocks(SECTION, "bash", PAGE)
    (toml,) = blocks(SECTION, "toml", PAGE)
    (here / "course.toml").write_text(toml, encoding="utf-8")

    released = _bash(release_block, here, env)
    release = here / re.search(r"--out (\S+)", release_block).group(1)

    # ada: all done, pushed on time. bob: never pushed a thing (the starter's
    # commit, no push of his: timed by that commit). cy: a catalogue mistake,
    # the commit dated before the deadline but pushed two days late. dee: the
    # files moved to the repository's top, pushed twice (the last, a force
    # push, on time): every kind of activity that brought HEAD counts.
    def pushes(name, *records):
        (activity / f"{name}.json").write_text(json.dumps([{"after": a, "timestamp": t, "activity_type": k} for a, t, k in records]))

    ada = _student_repo(release, origins / f"{SLUG}-ada", _solutions(), "2026-12-09T20:00:00+08:00")
    pushes(f"{SLUG}-ada", (ada, "2026-12-09T12:30:00Z", "push"), ("0" * 40, "2026-12-02T01:00:00Z", "push"))
    _student_repo(release, origins / f"{SLUG}-bob", {}, None)
    cy = _student_repo(release, origins / f"{SLUG}-cy", _wrong("release-set-1"), "2026-12-10T12:00:00+08:00")
    pushes(f"{SLUG}-cy", (cy, "2026-12-12T04:00:00Z", "push"))
    dee = _student_repo(release, origins / f"{SLUG}-dee", _solutions(), "2026-12-10T20:00:00+08:00", top_level=True)
    pushes(f"{SLUG}-dee", (dee, "2026-12-10T13:00:00Z", "force_push"), ("1" * 40, "2026-12-08T13:00:00Z", "push"))

    cloned = _bash(clone_block, here, env)
    timed = _bash(times_block, here, env)
    batched = _bash(batch_block, here, env)
    out = here / re.search(r"--out (\S+)", batch_block).group(1)
    return {"release": release, "released": released, "cloned": cloned, "timed": timed, "batched": batched, "out": out, "here": here, "env": env}


# --- the workflow ------------------------------------------------------------------


def _workflow(release: Path) -> dict:
    yaml = pytest.importorskip("yaml")  # PyYAML: jupyter's (nbgrader's) dependency in the test environment
    return yaml.safe_load((release / classroom_workflow.WORKFLOW).read_text(encoding="utf-8"))


def _steps(workflow: dict) -> list[dict]:
    (job,) = workflow["jobs"].values()
    return job["steps"]


def _grading_step(workflow: dict) -> dict:
    (step,) = [s for s in _steps(workflow) if "python -m grader" in s.get("run", "")]
    return step


def test_the_release_says_where_the_workflow_is(readme_class):
    release = readme_class["release"]
    assert f"GitHub Classroom:         {release / '.github/workflows/classroom.yml'}" in readme_class["released"].stdout
    assert (release / ".github" / "workflows" / "classroom.yml").is_file()
    assert not (release / "checks" / "hidden").exists()
    import zipfile

    with zipfile.ZipFile(str(release) + ".zip") as z:
        assert f"{release.name}/.github/workflows/classroom.yml" in z.namelist()


def test_workflow_runs_on_push_installs_python_and_cpu_torch_and_reports(readme_class):
    workflow = _workflow(readme_class["release"])
    assert "push" in workflow["on"]  # quoted in the file: YAML 1.1 reads a bare on as true
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest" and job["timeout-minutes"] > 0
    steps = _steps(workflow)
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses[0] == "actions/checkout"
    (python,) = [s for s in steps if s.get("uses", "").startswith("actions/setup-python@")]
    assert python["with"]["python-version"] == "3.11" and python["with"]["cache"] == "pip"
    # setup-python hashes this file for the cache key: it must exist in the student's repository.
    assert (readme_class["release"] / python["with"]["cache-dependency-path"]).is_file()
    install = "\n".join(s.get("run", "") for s in steps[: steps.index(_grading_step(workflow))])
    deps = tox_base_deps(ROOT)
    torch = next(d for d in deps if d.startswith("torch=="))
    assert torch == "torch==2.13.0"
    assert f"pip install {torch} --index-url https://download.pytorch.org/whl/cpu" in install
    for dep in deps:
        assert f'"{dep}"' in install or dep == torch, dep


def test_the_reporter_reads_the_grading_steps_result(readme_class):
    """autograding-grading-reporter's src/main.js: ``runners`` is a list of
    step ids (letters and digits), each read from ``<ID>_RESULTS``."""
    workflow = _workflow(readme_class["release"])
    steps = _steps(workflow)
    grading = _grading_step(workflow)
    step_id = grading["id"]
    assert re.fullmatch(r"[a-zA-Z0-9]+", step_id)
    reporter = steps[-1]
    assert reporter["uses"] == "classroom-resources/autograding-grading-reporter@v1"
    assert reporter["with"]["runners"] == step_id
    assert reporter["env"] == {f"{step_id.upper()}_RESULTS": f"${{{{ steps.{step_id}.outputs.result }}}}"}
    assert steps.index(grading) < steps.index(reporter)


# --- the grading step, run as written ------------------------------------------------


def _classroom_and_grade(release: Path, tmp_path: Path, files: dict, env: dict) -> tuple[dict, dict, subprocess.CompletedProcess]:
    """In a copy of the release with ``files`` in exercises/: the grading
    step's command as the workflow has it, and ``python -m grader grade``."""
    repo = tmp_path / "repo"
    shutil.copytree(release, repo)
    for ex, source in files.items():
        (repo / "exercises" / f"{ex}.py").write_text(source, encoding="utf-8")
    output = tmp_path / "github_output"
    output.write_text("")
    step = _grading_step(_workflow(release))
    proc = _bash(step["run"], repo, {**env, "GITHUB_OUTPUT": str(output)})
    lines = output.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("result="), lines
    result = json.loads(base64.b64decode(lines[0][len("result=") :]))
    graded = python_m_grader(["grade", "exercises", "--json", tmp_path / "results.json"], cwd=repo, env={k: v for k, v in env.items() if k != "GITHUB_OUTPUT"})
    assert graded.returncode == 0, graded.stdout + graded.stderr
    return result, json.loads((tmp_path / "results.json").read_text(encoding="utf-8")), proc


CASES = {
    "solutions": _solutions,
    "untouched stubs": dict,
    "catalogue mistakes, set 1": lambda: _wrong("release-set-1"),
    "catalogue mistakes, set 2": lambda: _wrong("release-set-2"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_classroom_points_are_grades_points(readme_class, tmp_path, case):
    """The reporter's notice for GitHub Classroom (src/notify-classroom.js)
    sums the tests' ``score`` over the runner's ``max_score``: that is
    ``grade``'s total out of the public points, check by check."""
    result, graded, proc = _classroom_and_grade(readme_class["release"], tmp_path, CASES[case](), readme_class["env"])
    assert result["version"] == 1
    assert result["max_score"] == PUBLIC == sum(t["max_score"] for t in graded["tests"])
    assert sum(t["score"] for t in result["tests"]) == graded["score"]
    assert {t["name"]: (t["score"], t["max_score"]) for t in result["tests"]} == {t["name"]: (t["score"], t["max_score"]) for t in graded["tests"]}
    assert all(t["line_no"] == 0 and t["status"] in ("pass", "fail") for t in result["tests"])
    assert [t["status"] == "pass" for t in result["tests"]] == [t["status"] == "passed" for t in graded["tests"]]
    everything = graded["score"] == PUBLIC
    assert result["status"] == ("pass" if everything else "fail")
    if case == "solutions":
        assert everything
    elif case == "untouched stubs":
        assert graded["score"] == 0
    else:
        assert 0 < graded["score"] < PUBLIC
    # The step's log is the student's report.
    assert f"{graded['score']:g} / {PUBLIC}" in proc.stderr and "Total" in proc.stderr


@pytest.mark.parametrize("how", ["no exercises folder", "a folder that is a file"])
def test_a_result_whatever_goes_wrong(readme_class, tmp_path, how):
    repo = tmp_path / "repo"
    shutil.copytree(readme_class["release"], repo)
    shutil.rmtree(repo / "exercises")
    if how == "a folder that is a file":
        (repo / "exercises").write_text("not a folder")
    output = tmp_path / "github_output"
    step = _grading_step(_workflow(readme_class["release"]))
    _bash(step["run"], repo, {**readme_class["env"], "GITHUB_OUTPUT": str(output)})
    (line,) = output.read_text().splitlines()
    result = json.loads(base64.b64decode(line.removeprefix("result=")))
    assert {k: result[k] for k in ("version", "status", "max_score")} == {"version": 1, "status": "error", "max_score": PUBLIC}
    _one_error_test(result)


def _one_error_test(result: dict) -> None:
    """One test of status "error" that says where to look: with none, the
    reporter's getTestScore (src/helpers/test-helpers.js) divides 0 by 0 and
    prints "Total points for grade: NaN/50"."""
    (test,) = result["tests"]
    assert test["status"] == "error" and test["score"] == 0 and "Actions log" in test["message"]
    passed = sum(t["status"] == "pass" for t in result["tests"])
    assert passed / len(result["tests"]) * result["max_score"] == 0  # the reporter's sum, finite


def test_result_of_a_grader_error_is_an_error():
    from grader.github_classroom import classroom_result

    results = {"tests": [{"name": "ex0: a", "status": "passed", "score": 1, "max_score": 1, "output": ""}]}
    assert classroom_result(results)["status"] == "pass"
    assert classroom_result(results, failed=True)["status"] == "error"
    _one_error_test(classroom_result(None))
    long = {"tests": [{"name": "ex0: a", "status": "failed", "score": 0, "max_score": 2, "output": "x" * 10_000}]}
    assert len(classroom_result(long)["tests"][0]["message"]) <= 500  # one environment variable carries it all


@pytest.mark.parametrize(
    "feedback",
    [
        # Many lines: cut at a line's end.
        "\n".join(f"第 {i} 行：要填 -inf。 / line {i}: fill it with -inf." for i in range(40)),
        # Two long lines, Chinese then English: both kept, each shortened at a word.
        "被遮住的位置要填 -inf，" * 40 + "\n" + "the masked places must be filled with -inf, " * 20,
        # One line with no space in it.
        "x" * 10_000,
    ],
    ids=["many lines", "two long lines", "no space"],
)
def test_a_long_message_is_cut_at_a_line_and_says_so(feedback):
    from grader.github_classroom import CUT, MESSAGE_CHARS, message

    said = message(feedback)
    assert len(said) <= MESSAGE_CHARS and said.endswith(CUT) and said.count(CUT) == 1
    kept = said.removesuffix(CUT).rstrip("\n").splitlines()
    lines = feedback.splitlines()
    if len(lines) > 2:
        assert kept == lines[: len(kept)] and len(kept) >= 2  # whole lines, from the first
    else:
        assert len(kept) == len(lines)  # the first line of each language
        for got, line in zip(kept, lines):
            assert line.startswith(got.removesuffix("…")) and (got == line or got.endswith("…"))
    assert message("short / 短") == "short / 短"


# --- batch on the cloned repositories -------------------------------------------------


def _grades(out: Path) -> dict:
    import csv

    with open(out / "grades.csv", encoding="utf-8", newline="") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def test_clone_block_makes_gh_classrooms_layout(readme_class):
    folder = readme_class["here"] / f"{SLUG}-submissions"
    assert sorted(os.listdir(folder)) == [f"{SLUG}-{s}" for s in ("ada", "bob", "cy", "dee")]
    assert all((folder / name / ".git").is_dir() for name in os.listdir(folder))


def test_times_block_writes_the_push_of_each_head(readme_class):
    times = (readme_class["here"] / "times.csv").read_text(encoding="utf-8").split()
    # bob has no push record: no row, so the batch times him by his commit.
    assert times == [f"{SLUG}-ada,2026-12-09T12:30:00Z", f"{SLUG}-cy,2026-12-12T04:00:00Z", f"{SLUG}-dee,2026-12-10T13:00:00Z"]


def test_batch_reads_the_clones_as_a_class(readme_class):
    said = readme_class["batched"].stdout + readme_class["batched"].stderr
    assert "GitHub Classroom's student repositories (gh classroom clone student-repos)" in said
    grades = _grades(readme_class["out"])
    assert sorted(grades) == [f"{SLUG}-{s}" for s in ("ada", "bob", "cy", "dee")]
    assert float(grades[f"{SLUG}-ada"]["raw"]) == 100 and float(grades[f"{SLUG}-dee"]["raw"]) == 100
    assert float(grades[f"{SLUG}-bob"]["raw"]) == 0
    assert 0 < float(grades[f"{SLUG}-cy"]["raw"]) < 100
    # exercises/ is graded; the starter's other files (notebooks/ among them) are no news.
    assert grades[f"{SLUG}-ada"]["note"] == "" and grades[f"{SLUG}-bob"]["note"] == ""
    results = json.loads((readme_class["out"] / f"{SLUG}-ada" / "results.json").read_text(encoding="utf-8"))
    assert any(t["tags"][1] == "hidden" for t in results["tests"])  # the teacher's grading has every check


def test_push_times_beat_commit_dates(readme_class):
    grades = _grades(readme_class["out"])
    cy, bob, ada = grades[f"{SLUG}-cy"], grades[f"{SLUG}-bob"], grades[f"{SLUG}-ada"]
    # cy's commit says 2026-12-10 12:00 (before the deadline); GitHub got the push two days late.
    assert cy["time_source"] == "times: times.csv" and int(cy["late_days"]) == 2
    assert ada["time_source"] == "times: times.csv" and int(ada["late_days"]) == 0
    # bob has no push: his repository's last commit, the starter's, which the batch names as the student's word.
    assert bob["time_source"] == GIT_COMMIT and bob["submitted_at"] == TEMPLATE_DATE and int(bob["late_days"]) == 0
    said = readme_class["batched"].stderr
    assert "1 student timed by the repository's last commit date, which the student's machine sets and can forge" in said
    assert f"{SLUG}-bob" in said.split("can forge")[1].splitlines()[0]


def test_without_a_times_file_the_commit_date_counts_and_is_named(readme_class, tmp_path):
    """The same class, without the push times: each student's last commit
    date, forgeable, and the batch says so for every one of them."""
    policy = tmp_path / "course.toml"
    policy.write_text("due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = 10\n", encoding="utf-8")
    proc = python_m_grader(
        ["batch", readme_class["here"] / f"{SLUG}-submissions", "--out", tmp_path / "out", "--policy", policy, "--no-report", "--jobs", "1"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    grades = _grades(tmp_path / "out")
    assert {g["time_source"] for g in grades.values()} == {GIT_COMMIT}
    assert int(grades[f"{SLUG}-cy"]["late_days"]) == 0  # the forged date holds where nothing else is known
    assert grades[f"{SLUG}-dee"]["submitted_at"] == "2026-12-10T20:00:00+08:00"
    assert "4 students timed by the repository's last commit date" in proc.stderr


# --- reading a folder of clones --------------------------------------------------------


def test_a_folder_is_a_class_of_clones_when_most_of_it_is(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / name / ".git").mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("x")
    names = sorted(os.listdir(tmp_path))
    assert classroom_repos.looks_like(str(tmp_path), names)
    (tmp_path / "d").mkdir()
    (tmp_path / "e").mkdir()
    assert not classroom_repos.looks_like(str(tmp_path), sorted(os.listdir(tmp_path)))
    # A .git that is a link or a file is not what gh repo clone makes.
    (tmp_path / "f").mkdir()
    os.symlink(tmp_path / "a" / ".git", tmp_path / "f" / ".git")
    assert not classroom_repos.is_clone(str(tmp_path / "f"))


def test_no_git_history_no_time(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert classroom_repos.last_commit_time(str(tmp_path / "repo")) == ""


def test_the_fixture_runs_every_block_of_the_page():
    """docs/teachers/github_classroom.md's bash blocks are the four the fixture above runs as written, in order, and its one toml block its course.toml."""
    shown = re.findall(r"^```bash\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    assert shown == blocks(SECTION, "bash", PAGE) and len(shown) == 4
    assert len(re.findall(r"^```toml$", PAGE.read_text(encoding="utf-8"), re.MULTILINE)) == 1
