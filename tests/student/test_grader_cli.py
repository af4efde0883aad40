"""The grader as a student and a teacher use it: the command line, the
terminal report, results.json and exit codes."""

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, grade_cli, make_submission, points_by_exercise, run_cli

from grader.exercises import BY_ID, IDS, TOTAL
from grader.student.report import width


def tree_hash(folder) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder)
            out[rel] = hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.isfile(path) else "dir"
    return out


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    folder = make_submission(tmp_path_factory.mktemp("solved") / "sub")
    before = tree_hash(folder)
    results, proc = grade_cli(folder)
    return folder, before, results, proc


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    folder = make_submission(tmp_path_factory.mktemp("stubs") / "sub", base=EXERCISES)
    results, proc = grade_cli(folder)
    return results, proc


def test_solutions_score_100(solved):
    _, _, results, proc = solved
    assert results["score"] == TOTAL
    assert all(t["status"] == "passed" for t in results["tests"])
    assert f"{TOTAL} / {TOTAL}" in proc.stdout


def test_stubs_score_0_and_say_not_implemented(stubs):
    results, proc = stubs
    assert results["score"] == 0
    assert all(t["status"] == "failed" for t in results["tests"])
    assert all("尚未完成" in t["output"] and "not implemented yet" in t["output"] for t in results["tests"])
    assert f"0 / {TOTAL}" in proc.stdout
    # Where the unfinished code is; the report wraps a long folder's path
    # (a parallel run's temporary folders are longer) across lines.
    flat = re.sub(r"\s*\n\s*", " ", proc.stdout)
    for ex in IDS:
        assert f"{ex}.py, line" in flat


def test_results_json_is_gradescope_shaped(solved):
    _, _, results, _ = solved
    assert set(results) >= {"score", "execution_time", "tests"}
    assert isinstance(results["execution_time"], (int, float))
    seen = set()
    for t in results["tests"]:
        assert set(t) >= {"name", "score", "max_score", "status", "output", "visibility", "tags"}
        assert t["status"] in ("passed", "failed")
        assert t["visibility"] in ("visible", "after_published")
        assert t["tags"][0] in IDS
        assert t["name"].startswith(t["tags"][0])
        seen.add(t["tags"][0])
        assert (t["visibility"] == "after_published") == (t["tags"][1] == "hidden")
    assert seen == set(IDS)
    # Each exercise is worth what grader/exercises.py says, public and hidden.
    worth = {(ex, kind): 0.0 for ex in IDS for kind in ("public", "hidden")}
    for t in results["tests"]:
        worth[t["tags"][0], t["tags"][1]] += t["max_score"]
    assert worth == {k: v for ex in IDS for k, v in (((ex, "public"), BY_ID[ex].public), ((ex, "hidden"), BY_ID[ex].hidden))}
    assert sum(t["max_score"] for t in results["tests"]) == TOTAL


def test_every_exercise_has_public_and_hidden_checks(solved):
    _, _, results, _ = solved
    for ex in IDS:
        kinds = {t["tags"][1] for t in results["tests"] if t["tags"][0] == ex}
        assert kinds == {"public", "hidden"}, ex


def test_terminal_report_fits_80_columns_and_has_no_warnings(solved, stubs, tmp_path):
    folder = make_submission(tmp_path / "mixed", {"ex4_masking": open(os.path.join(SOLUTIONS, "ex4_masking.py")).read().replace('float("-inf")', "0.0")})
    _, mixed = grade_cli(folder)
    for proc in (solved[3], stubs[1], mixed):
        for line in proc.stdout.splitlines():
            assert width(line) <= 80, line
        assert "Warning" not in proc.stdout and "warning" not in proc.stderr.lower()
    assert "-inf" in mixed.stdout  # the diagnosis for a mask filled with 0


def test_submission_folder_is_not_changed(solved):
    folder, before, _, _ = solved
    assert tree_hash(folder) == before


def test_only_grades_one_exercise(tmp_path):
    folder = make_submission(tmp_path / "sub")
    results, proc = grade_cli(folder, "--only", "ex4_masking")
    assert {t["tags"][0] for t in results["tests"]} == {"ex4_masking"}
    assert results["score"] == BY_ID["ex4_masking"].points
    assert "ex5_head" not in proc.stdout


def test_usage_errors_exit_2(tmp_path):
    bad = run_cli("grade", str(tmp_path / "missing"))
    assert bad.returncode == 2 and "no such folder" in bad.stderr
    unknown = run_cli("grade", EXERCISES, "--only", "ex9_nothing")
    assert unknown.returncode == 2 and "ex4_masking" in unknown.stderr  # lists the valid ids
    typo = run_cli("grade", EXERCISES, "--only", "masking")
    assert typo.returncode == 2 and "ex4_masking" in typo.stderr
    assert run_cli("frobnicate").returncode == 2


def test_low_score_still_exits_0(stubs):
    assert stubs[1].returncode == 0


def test_missing_files_cost_only_their_exercise(tmp_path):
    folder = make_submission(tmp_path / "sub")
    os.remove(os.path.join(folder, "ex2_scores.py"))
    results, proc = grade_cli(folder)
    points = points_by_exercise(results)
    assert points["ex2_scores"] == 0 and results["score"] == TOTAL - BY_ID["ex2_scores"].points
    assert "file not found" in proc.stdout


@pytest.mark.parametrize("first", ["there", "missing"])
def test_a_folder_of_some_files_counts_the_missing_ones_as_not_started(tmp_path, first):
    """A folder of two exercises, one a notebook: each missing exercise says
    both names it could have had, and the total counts it as not started
    (it said "1 of 8 done, 1 not started", the 6 missing left out)."""
    folder = tmp_path / "two"
    folder.mkdir()
    ex0, ex1 = BY_ID["ex0_weighted_sum"], BY_ID["ex1_averaging"]
    if first == "there":
        (folder / ex0.notebook).write_bytes((Path(ROOT) / "notebooks" / ex0.notebook).read_bytes())  # the untouched notebook
    (folder / ex1.filename).write_bytes((Path(SOLUTIONS) / ex1.filename).read_bytes())
    results, proc = grade_cli(folder)
    assert points_by_exercise(results)["ex1_averaging"] == ex1.points
    said = " ".join(proc.stdout.split())
    assert f"file not found: {folder / 'ex2_scores.py'} (nor ex2_scores.ipynb)" in said, said
    assert said.count("· 找不到") == (6 if first == "there" else 7)  # one line each
    # The closing line: the longest wording that fits the terminal.
    if first == "there":
        assert re.search(r"Total 10 / 100: 1 of 8 done, 7 not started\. Next: (write ex0_weighted_sum|ex0_weighted_sum, at its TODO)", said), said
    else:
        assert re.search(r"Total 10 / 100: 1 of 8 done, 7 not started\. Next: put ex0_weighted_sum's file", said), said


def test_start_writes_the_exercises_and_notebooks_and_never_over_a_file(tmp_path):
    """``start DIR``: the stubs and notebooks a student works on, laid out as
    the student edition lays them out; a second start changes nothing."""
    empty = run_cli("grade", cwd=str(tmp_path))  # in a folder with no exercises/: what to do
    assert empty.returncode == 2 and "no such folder: exercises" in empty.stderr and "`start FOLDER` puts the exercises in a folder" in empty.stderr
    work = tmp_path / "work"
    proc = run_cli("start", str(work))
    assert proc.returncode == 0, proc.stderr
    for folder, name in (("exercises", "filename"), ("notebooks", "notebook")):
        assert sorted(os.listdir(work / folder)) == sorted(getattr(BY_ID[ex], name) for ex in IDS)
        for ex in IDS:
            assert (work / folder / getattr(BY_ID[ex], name)).read_bytes() == (Path(ROOT) / folder / getattr(BY_ID[ex], name)).read_bytes()
    assert "grade" in proc.stdout and 'check("ex0_weighted_sum")' in proc.stdout
    mine = work / "exercises" / "ex0_weighted_sum.py"
    mine.write_text("# my work\n", encoding="utf-8")
    again = run_cli("start", str(work))
    assert again.returncode == 1 and "none was changed" in again.stderr and "一个也没改" in again.stderr
    assert mine.read_text(encoding="utf-8") == "# my work\n"
    results, _ = grade_cli(work / "exercises")
    assert results["score"] == 0  # the stubs (and one file of mine)


def test_json_goes_where_asked_and_is_complete(tmp_path):
    out = tmp_path / "deep" / "results.json"
    proc = run_cli("grade", SOLUTIONS, "--json", str(out))
    assert proc.returncode == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["score"] == TOTAL
    assert not [p for p in os.listdir(out.parent) if p.startswith(".tmp-")]  # written atomically


def test_no_machine_paths_in_the_repository():
    pattern = re.compile(r"/(work|farm|opt/wheels|tmp/venv)/")
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in (".git", ".tox", "__pycache__", ".pytest_cache", ".hypothesis")]
        for name in filenames:
            if name.endswith((".py", ".md", ".ini", ".toml", ".txt", ".cfg")) or name == "run":
                text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
                assert not pattern.search(text), os.path.join(dirpath, name)
