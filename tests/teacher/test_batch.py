"""Batch grading with the real command line (``python -m grader batch``):
the example class in ``examples/submissions``, a folder of bad input, an
interrupted batch run again, ``--force``, and nbgrader's own ``export``
reading the gradebook.
"""

import csv
import importlib.util
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time

import pytest
import results_schema
from conftest import ROOT, SOLUTIONS, ctrl_c_as_in_a_terminal, make_submission, python_m_grader
from environments import environment
from test_intake import BAD_ID, FORMULA_CELL, FORMULA_ID, SHARING, make_nasty_dir

from grader.exercises import BY_ID, IDS, TOTAL
from grader.teacher.batch.grades_csv import GradeRow
from grader.teacher.batch.output import BatchOutput
from grader.teacher.intake import submissions
from grader.teacher.report.similar import THRESHOLD

EXAMPLES = os.path.join(ROOT, "examples", "submissions")
HAVE_NBGRADER = importlib.util.find_spec("nbgrader") is not None
needs_nbgrader = pytest.mark.skipif(not HAVE_NBGRADER, reason="nbgrader is not installed (tox -e test installs it): no gradebook to check")


def _env(tmp) -> dict:
    os.makedirs(tmp, exist_ok=True)
    return environment(ROOT, TMPDIR=str(tmp))


def batch(*args, tmp, timeout=600) -> subprocess.CompletedProcess:
    return python_m_grader(["batch", *args], cwd=ROOT, env=_env(tmp), timeout=timeout)


def batch_popen(*args, tmp) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "batch", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp),
        preexec_fn=ctrl_c_as_in_a_terminal,
    )


def read_csv(out) -> list[dict]:
    with open(os.path.join(out, "grades.csv"), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def by_id(rows) -> dict:
    return {r["student_id"]: r for r in rows}


def points(row) -> dict:
    return {ex: float(row[ex]) for ex in IDS}


def results_of(out, sid) -> dict:
    with open(os.path.join(out, submissions.safe_name(sid), "results.json"), encoding="utf-8") as f:
        return json.load(f)


def maxima(results) -> dict:
    most = {ex: 0.0 for ex in IDS}
    for t in results["tests"]:
        most[t["tags"][0]] += t["max_score"]
    return most


def tree(path, skip=()) -> dict:
    """Every name under ``path`` with its type, size and mtime (links not followed)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[os.path.relpath(p, path)] = (stat.S_IFMT(st.st_mode), 0 if stat.S_ISDIR(st.st_mode) else st.st_size, st.st_mtime_ns)
    return out


def graded_lines(stderr: str) -> set:
    """Ids of students this run graded, from its one-line-per-student log."""
    out = set()
    for line in stderr.splitlines():
        if line.startswith("[") and "] " in line:
            out.add(line.split("] ", 1)[1].split(": ", 1)[0])
    return out


def skipped_lines(stderr: str) -> set:
    prefix = "跳过 / skip "
    return {line[len(prefix) :].split(": ")[0] for line in stderr.splitlines() if line.startswith(prefix)}


def gradebook_counts(out) -> dict:
    con = sqlite3.connect(os.path.join(out, "gradebook.db"))
    try:
        q = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731 - a one-line helper
        return {
            "assignments": q("select count(*) from assignment"),
            "notebooks": q("select count(*) from notebook"),
            "grade_cells": q("select count(*) from grade_cells"),
            "students": q("select count(*) from student"),
            "submissions": q("select count(*) from submitted_assignment"),
            "grades": q("select count(*) from grade"),
        }
    finally:
        con.close()


# ------------------------------------------------------------ the examples


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    base = tmp_path_factory.mktemp("examples")
    out, tmp = base / "out", base / "tmp"
    before = tree(EXAMPLES)
    proc = batch(EXAMPLES, "--out", out, tmp=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {"out": str(out), "tmp": str(tmp), "proc": proc, "before": before}


def test_examples_grades(examples):
    rows = read_csv(examples["out"])
    assert [r["student_id"] for r in rows] == sorted(["anna", "ben", "dana smith", "eve", "frank", "grace", "hugo", "李明"])
    assert list(rows[0]) == ["student_id", *IDS, "total", "note"]
    g = by_id(rows)
    full = maxima(results_of(examples["out"], "anna"))
    assert full == {ex: BY_ID[ex].points for ex in IDS}
    assert points(g["anna"]) == full and float(g["anna"]["total"]) == TOTAL
    for sid, r in g.items():
        assert float(r["total"]) == pytest.approx(sum(points(r).values())), sid
        assert r["note"] == "", (sid, r["note"])

    def lost(sid):
        return {ex for ex, p in points(g[sid]).items() if p < full[ex]}

    early = {"ex0_weighted_sum", "ex1_averaging", "ex2_scores", "ex3_scaling"}
    assert lost("ben") == set(IDS) - early
    assert all(points(g["ben"])[ex] == 0 for ex in set(IDS) - early)
    assert lost("李明") == {"ex4_masking", "ex5_head", "ex6_block"}
    assert lost("dana smith") == {"ex1_averaging", "ex3_scaling"}  # nbgrader's DIR/<id>/<assignment>/
    assert lost("frank") == {"ex2_scores"}  # a zip with exercises/ inside
    # hugo copied grace (grader similar finds it) and so her mistake: the mask filled in place.
    assert lost("grace") == lost("hugo") == {"ex4_masking"}
    assert float(g["grace"]["total"]) == float(g["hugo"]["total"])
    # The attack (a fake 100/100 printed, then os._exit(0)) earns nothing:
    # eve scores no more than her honest part.
    honest = sum(full[ex] for ex in ("ex1_averaging", "ex2_scores", "ex3_scaling"))
    assert points(g["eve"])["ex0_weighted_sum"] == 0
    assert float(g["eve"]["total"]) <= honest


def test_examples_files(examples):
    out = examples["out"]
    # One secret for the whole class: every student met the same unseen inputs, and a regrade can repeat them.
    assert len({results_of(out, sid)["extra_data"]["inputs_seed"] for sid in ["anna", "ben", "eve", "李明"]}) == 1
    for sid in ["anna", "ben", "dana smith", "eve", "frank", "grace", "hugo", "李明"]:
        folder = os.path.join(out, sid)
        assert sorted(os.listdir(folder)) == ["feedback.md", "results.json"], sid
        res = results_of(out, sid)
        # what `grade --json` writes, with the submission's hash, as Gradescope reads it
        assert results_schema.valid(res)
        assert {"name", "score", "max_score", "status", "output", "visibility", "tags"} <= set(res["tests"][0])
        extra = res["extra_data"]
        assert extra["student_id"] == sid and extra["assignment"] == "attention"
        assert len(extra["submission_sha256"]) == 64
        row = by_id(read_csv(out))[sid]
        assert res["score"] == pytest.approx(float(row["total"]))
        with open(os.path.join(folder, "feedback.md"), encoding="utf-8") as f:
            md = f.read()
        assert md.startswith("# 评分反馈 / Feedback")
        assert f"总分 / total: **{row['total']} / {TOTAL}**" in md
    with open(os.path.join(out, "李明", "feedback.md"), encoding="utf-8") as f:
        md = f.read()
    assert "## ex4_masking" in md and "-inf" in md  # the diagnosis of the mask filled with 0
    assert "filled the future with 0" in md


def test_examples_nothing_written_elsewhere(examples):
    assert tree(EXAMPLES) == examples["before"]  # the submissions are only read
    assert os.listdir(examples["tmp"]) == []  # every temporary folder was removed
    assert sorted(n for n in os.listdir(examples["out"]) if n.startswith(".")) == [".batch.lock"]


def test_examples_progress(examples):
    err = examples["proc"].stderr
    assert graded_lines(err) == {"anna", "ben", "dana smith", "eve", "frank", "grace", "hugo", "李明"}
    assert "[8/8]" in err
    assert "完成 / done" in examples["proc"].stdout


@needs_nbgrader
def test_gradebook_and_nbgrader_export(examples, tmp_path):
    out = examples["out"]
    assert gradebook_counts(out) == {"assignments": 1, "notebooks": 1, "grade_cells": len(IDS), "students": 8, "submissions": 8, "grades": 8 * len(IDS)}
    con = sqlite3.connect(os.path.join(out, "gradebook.db"))
    cells = dict(con.execute("select base_cell.name, grade_cells.max_score from grade_cells join base_cell on base_cell.id = grade_cells.id").fetchall())
    con.close()
    assert cells == {ex: BY_ID[ex].points for ex in IDS} == maxima(results_of(out, "anna"))  # the table's points
    path_env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    # The database is stamped with the head of nbgrader's migrations, as
    # nbgrader itself finds it (the batch reads it in-process instead).
    con = sqlite3.connect(os.path.join(out, "gradebook.db"))
    (stamp,) = con.execute("select version_num from alembic_version").fetchone()
    con.close()
    head = subprocess.run(
        [sys.executable, "-c", "import nbgrader.api; print(nbgrader.api.get_alembic_version())"],
        capture_output=True,
        text=True,
        timeout=300,
        env=path_env,
        cwd=tmp_path,
    )
    assert head.returncode == 0, head.stderr
    assert stamp == head.stdout.strip()
    # nbgrader's own command line reads it: every student, with their total.
    exported = tmp_path / "export.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--db", f"sqlite:///{out}/gradebook.db", "--to", str(exported)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=path_env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(exported, encoding="utf-8", newline="") as f:
        got = {r["student_id"]: r for r in csv.DictReader(f)}
    rows = by_id(read_csv(out))
    assert sorted(got) == sorted(rows)
    for sid, r in rows.items():
        assert got[sid]["assignment"] == "attention"
        assert float(got[sid]["score"]) == pytest.approx(float(r["total"])), sid
        assert float(got[sid]["max_score"]) == TOTAL


# ---------------------------------------------------------------- bad input


def test_nasty_folder(tmp_path):
    d = tmp_path / "in" / "subs"
    expect = make_nasty_dir(d)
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    tmp.mkdir()
    before = tree(tmp_path, skip={str(tmp)})
    proc = batch(d, "--out", out, "--jobs", "2", tmp=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Nothing outside OUT changed; no temporary folder left behind.
    after = tree(tmp_path, skip={str(out), str(tmp)})
    assert {k: v for k, v in after.items() if k != "out"} == before
    assert os.listdir(tmp) == []
    assert "readme.txt" in proc.stderr
    rows = by_id(read_csv(out))
    # The id a spreadsheet would evaluate is escaped in grades.csv, and only there.
    assert FORMULA_CELL in rows and FORMULA_ID not in rows
    assert results_of(out, FORMULA_ID)["extra_data"]["student_id"] == FORMULA_ID
    rows[FORMULA_ID] = rows.pop(FORMULA_CELL)
    assert sorted(rows) == sorted(expect)
    assert BAD_ID in rows and "王 小明" in rows and "grades.csv" in rows
    full = maxima(results_of(out, "王 小明"))
    assert sum(full.values()) == TOTAL
    for sid, (status, words, good) in expect.items():
        row = rows[sid]
        for w in words:
            assert w in row["note"], (sid, row["note"])
        if sid in SHARING:
            # Its row only: its folder would be the first one's on macOS.
            assert not os.path.exists(os.path.join(out, submissions.safe_name(sid))), sid
            assert float(row["total"]) == 0, sid
            assert results_of(out, SHARING[sid])["extra_data"]["student_id"] == SHARING[sid]
            continue
        assert os.path.isfile(os.path.join(out, submissions.safe_name(sid), "feedback.md")), sid
        res = results_of(out, sid)
        if status is None:
            assert float(row["total"]) == 0 and res["tests"] == [] and res["score"] == 0, sid
            assert res["extra_data"]["submission_sha256"] is None
            continue
        got = points(row)
        for ex in IDS:
            if ex in good:
                assert got[ex] == full[ex], (sid, ex, got)
            else:
                assert got[ex] == 0, (sid, ex, got)
    with open(out / "empty" / "feedback.md", encoding="utf-8") as f:
        md = f.read()
    assert "your submission could not be graded" in md and md.count("no exercise files") == 1
    with open(out / "linky" / "feedback.md", encoding="utf-8") as f:
        assert "ex0_weighted_sum.py is a symbolic link" in f.read()  # the note is in the student's feedback too
    # The student called "grades.csv" did not overwrite the gradebook's CSV.
    assert os.path.isfile(out / "grades.csv")
    assert os.path.isdir(out / submissions.safe_name("grades.csv"))
    # Nothing was unpacked outside the work folder, which is gone.
    assert not any(n.startswith(".work-") for n in os.listdir(out))
    assert not os.path.exists(tmp_path / "in" / "escaped.py")
    if HAVE_NBGRADER:  # the gradebook has the id as it is
        con = sqlite3.connect(out / "gradebook.db")
        assert con.execute("select count(*) from student where id = ?", (FORMULA_ID,)).fetchone()[0] == 1
        con.close()


def test_csv_text_cells_are_no_formulas(tmp_path):
    """A text cell of grades.csv (id or note) that a spreadsheet would take
    for a formula (OWASP: = + - @ tab CR first) starts with ', as does one
    that starts with ' (so dropping one leading ' always gives the text
    back); the score cells stay plain numbers."""
    store = BatchOutput(str(tmp_path), "attention")
    ids = ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1+1", "\r=1+1", "  =1+1", "'quoted", "plain", "王 小明", "a=b", "1-1"]
    got = {ex: 1.5 for ex in IDS}
    for sid in ids:
        store.add_row(GradeRow.of(sid, got, ['=HYPERLINK("evil.example","click")'] if sid == "plain" else []))
    with open(tmp_path / "grades.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["student_id", *IDS, "total", "note"]
    cells = {r[0]: r for r in rows[1:]}
    assert sorted(cells) == sorted(["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\t=1+1", "'\r=1+1", "'  =1+1", "''quoted", "plain", "王 小明", "a=b", "1-1"])
    assert {c[1:] if c.startswith("'") else c for c in cells} == set(ids)
    for r in cells.values():
        assert r[1:-1] == ["1.5"] * len(IDS) + [f"{1.5 * len(IDS):g}"]
    assert cells["plain"][-1] == '\'=HYPERLINK("evil.example","click")'
    assert cells["'=1+1"][-1] == ""  # an empty note stays empty


def test_a_note_holding_a_semicolon_is_one_bullet(tmp_path):
    """Notes are joined by "; " in grades.csv's note cell and nowhere else:
    a note that holds "; " (a file the student named so) is one bullet of
    feedback.md and one line of results.json's reasons, graded or not."""
    d, out = tmp_path / "subs", tmp_path / "out"
    make_submission(str(d / "graded"), {}, base=SOLUTIONS)
    (d / "graded" / "notes; old.txt").write_text("x", encoding="utf-8")
    (d / "nothing").mkdir()
    (d / "nothing" / "draft; v2.txt").write_text("x", encoding="utf-8")
    proc = batch(d, "--out", out, "--no-report", "--jobs", "1", tmp=tmp_path / "tmp")
    assert proc.returncode == 0, proc.stderr
    for sid, name in (("graded", "notes; old.txt"), ("nothing", "draft; v2.txt")):
        feedback = (out / sid / "feedback.md").read_text(encoding="utf-8")
        bullets = [line for line in feedback.splitlines() if line.lstrip("> ").startswith("- ") and "ignored" in line]
        assert [b.lstrip("> ").removeprefix("- ") for b in bullets] == [f"忽略 / ignored: {name}"], feedback
    assert "忽略 / ignored: draft; v2.txt" in results_of(out, "nothing")["output"].splitlines()
    rows = by_id(read_csv(out))
    assert rows["nothing"]["note"] == "没有练习文件 / no exercise files; 忽略 / ignored: draft; v2.txt"
    assert rows["graded"]["note"] == "忽略 / ignored: notes; old.txt" and float(rows["graded"]["total"]) == TOTAL


def test_usage_errors(tmp_path):
    proc = batch(tmp_path / "missing", "--out", tmp_path / "out", tmp=tmp_path / "tmp")
    assert proc.returncode == 2 and "no such folder" in proc.stderr
    (tmp_path / "subs").mkdir()
    proc = batch(tmp_path / "subs", "--out", tmp_path / "subs", tmp=tmp_path / "tmp")
    assert proc.returncode == 2
    proc = batch(tmp_path / "subs", "--out", tmp_path / "o", "--jobs", "0", tmp=tmp_path / "tmp")
    assert proc.returncode == 2
    proc = batch(tmp_path / "subs", "--out", tmp_path / "o", "--threshold", "1.5", tmp=tmp_path / "tmp")
    assert proc.returncode == 2 and "--threshold" in proc.stderr


@pytest.mark.parametrize("holds", ["nothing", "the solutions' files"])
def test_a_folder_with_no_submissions_fails_and_says_what_it_should_hold(tmp_path, holds):
    """``batch solutions --out out/`` (one student's files, not a class) or an
    empty folder: exit 1, said in both languages, and no grades.csv that
    looks like a graded class."""
    subs = tmp_path / "subs"
    if holds == "nothing":
        subs.mkdir()
    else:
        shutil.copytree(SOLUTIONS, subs)
    proc = batch(subs, "--out", tmp_path / "out", tmp=tmp_path / "tmp")
    assert proc.returncode == 1, proc.stderr
    assert "no submissions found" in proc.stderr and "one folder or one zip per student" in proc.stderr and "每个学生一个文件夹" in proc.stderr
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_examples_class_files(examples):
    """The batch ends with the similarity check and the class report, and
    says where they are."""
    out = examples["out"]
    for name in ("report.html", "report.md", "similar.html", "similar.json"):
        assert os.path.isfile(os.path.join(out, name)), name
        if name.endswith((".html", ".md")):  # what a person opens
            assert os.path.join(out, name) in examples["proc"].stdout
    with open(os.path.join(out, "similar.json"), encoding="utf-8") as f:
        pairs = json.load(f)["pairs"]
    assert [sorted([p["a"], p["b"]]) for p in pairs] == [["grace", "hugo"]]  # hugo copied grace, disguised
    # ...and it says so, as ``similar`` does: how many pairs, and where to look.
    assert f"相似 / similar: 1 对 / pairs ≥ {THRESHOLD:g} (8 名学生 / students) → {os.path.join(out, 'similar.html')}" in examples["proc"].stdout
    with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
        page = f.read()
    assert "相似的提交 / Similar submissions" in page
    assert all(r["student_id"] in page for r in read_csv(out))


def test_class_files_are_optional_and_cost_no_grades(tmp_path):
    """--no-report leaves them out; a report that cannot be written is
    reported, and the grades stand."""
    d, tmp = tmp_path / "subs", tmp_path / "tmp"
    make_submission(str(d / "solo"), {}, base=SOLUTIONS)
    proc = batch(d, "--out", tmp_path / "plain", "--no-report", tmp=tmp)
    assert proc.returncode == 0, proc.stderr
    assert not {"report.html", "report.md", "similar.json", "similar.html"} & set(os.listdir(tmp_path / "plain"))

    blocked = tmp_path / "blocked"
    (blocked / "report.html").mkdir(parents=True)  # nothing can be renamed onto a folder
    proc = batch(d, "--out", blocked, tmp=tmp)
    assert proc.returncode == 0, proc.stderr
    assert "the class report was not written" in proc.stderr
    assert float(by_id(read_csv(blocked))["solo"]["total"]) == TOTAL


# --------------------------------------------------- interrupted, run again


def _class_of(d, n: int) -> list[str]:
    """n students: solutions, some with a usual mistake."""
    wrong = sorted(os.listdir(os.path.join(ROOT, "tests", "catalogue", "wrong")))
    ids = []
    for i in range(n):
        sid = f"s{i:02d}"
        replace = {}
        if i % 2:
            name = wrong[(i * 7) % len(wrong)]
            with open(os.path.join(ROOT, "tests", "catalogue", "wrong", name), encoding="utf-8") as f:
                replace[name.split("__")[0]] = f.read()
        make_submission(os.path.join(d, sid), replace, base=SOLUTIONS)
        ids.append(sid)
    return ids


def _finished(out) -> set:
    return {n for n in os.listdir(out) if os.path.isfile(os.path.join(out, n, "results.json"))} if os.path.isdir(out) else set()


def _wait_for_results(proc, out, more_than: set, timeout=300) -> set:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = _finished(out)
        if done - more_than:
            return done
        if proc.poll() is not None:
            return done
        time.sleep(0.05)
    raise AssertionError("no student finished in time")


def test_interrupted_then_resumed(tmp_path):
    d, out, tmp = tmp_path / "subs", tmp_path / "out", tmp_path / "tmp"
    ids = _class_of(d, 8)
    args = (d, "--out", out, "--jobs", "1")

    # 1. SIGKILL as soon as the first student is written.
    p = batch_popen(*args, tmp=tmp)
    _wait_for_results(p, out, set())
    p.kill()
    p.communicate()
    first = _finished(out)
    assert first and first < set(ids)

    # 2. Again, and Ctrl-C (SIGINT to the batch alone) after its first new student.
    p = batch_popen(*args, tmp=tmp)
    _wait_for_results(p, out, first)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    second = _finished(out)
    assert skipped_lines(stderr) == first  # it said whom it skipped
    assert not graded_lines(stderr) & first
    if p.returncode == 130:
        assert "interrupted" in stderr
    else:  # it finished before the signal came
        assert p.returncode == 0 and second == set(ids)
    assert second > first

    # 3. Once more: only the rest is graded, and the batch completes.
    proc = batch(*args, tmp=tmp)
    assert proc.returncode == 0, proc.stderr
    assert skipped_lines(proc.stderr) == second
    assert graded_lines(proc.stderr) == set(ids) - second
    rows = by_id(read_csv(out))
    assert sorted(rows) == ids
    for sid in ids:
        assert float(rows[sid]["total"]) == results_of(out, sid)["score"]
    if HAVE_NBGRADER:
        assert gradebook_counts(out) == {"assignments": 1, "notebooks": 1, "grade_cells": len(IDS), "students": 8, "submissions": 8, "grades": 8 * len(IDS)}
    # The class report covers the whole class: those graded by earlier runs too.
    with open(out / "report.md", encoding="utf-8") as f:
        report_md = f.read()
    assert all(sid in report_md for sid in ids)
    assert os.listdir(tmp) == []

    # 4. A changed submission is graded again, and only it.
    with open(d / "s03" / "ex3_scaling.py", "a", encoding="utf-8") as f:
        f.write("\n# a late edit\n")
    proc = batch(*args, tmp=tmp)
    assert proc.returncode == 0, proc.stderr
    assert graded_lines(proc.stderr) == {"s03"}

    # 5. --force regrades everyone; the gradebook is updated in place.
    proc = batch(*args, "--force", tmp=tmp)
    assert proc.returncode == 0, proc.stderr
    assert graded_lines(proc.stderr) == set(ids) and not skipped_lines(proc.stderr)
    assert by_id(read_csv(out)) == rows
    if HAVE_NBGRADER:
        assert gradebook_counts(out)["grades"] == 8 * len(IDS) and gradebook_counts(out)["submissions"] == 8


# A submission that kills the process group of the process that runs it (the
# zygote's, which is its worker's): possible without the sandbox. Guarded so
# that it only ever hits a batch grader.
KILL_WORKER = """
import os, signal
import torch


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\\0")
    except OSError:
        return []


_argv = _cmdline(os.getppid())
if b"grader" in _argv and b"batch" in _argv:
    try:
        os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
    except PermissionError:
        # A root grader's children run as a user of their own, which cannot
        # signal the worker: wait, named, for the test to kill it instead.
        import ctypes, time

        ctypes.CDLL(None).prctl(15, b"worker-victim", 0, 0, 0)
        time.sleep(60)


def weighted_sum(scores, values):
    return (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
"""


def _named(name: str, under: int) -> int | None:
    """A process called ``name`` that descends from ``under``: never another
    test run's on the same machine (killing its worker's group would kill it)."""
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
                if pid.isdigit() and f.read().strip() == name and _descends_from(int(pid), under):
                    return int(pid)
        except OSError:
            pass
    return None


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = _parent(pid)
        if pid == ancestor:
            return True
    return False


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def test_a_dead_worker_is_replaced(tmp_path):
    """Without the sandbox, where children run as the grader's user, a
    submission can kill its own worker: the batch notes that student, starts
    another worker, grades the rest, and tries that student again on the next
    run. Where they run as a user of their own (a root grader), the
    submission cannot, and the test kills the worker itself."""
    d, out, tmp = tmp_path / "subs", tmp_path / "out", tmp_path / "tmp"
    ids = _class_of(d, 3)
    make_submission(d / "killer", {"ex0_weighted_sum": KILL_WORKER})
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "batch", str(d), "--out", str(out), "--jobs", "1", "--sandbox", "off"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp),
        start_new_session=True,  # whatever it kills stays in this session
    )
    victim = None
    while proc.poll() is None and victim is None:
        victim = _named("worker-victim", under=proc.pid)
        time.sleep(0.1)
    if victim is not None:
        zygote = _parent(victim)
        os.killpg(os.getpgid(_parent(zygote)), signal.SIGKILL)  # the worker's group: the worker and its zygote
        os.kill(victim, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    rows = by_id(read_csv(out))
    assert sorted(rows) == sorted(ids + ["killer"])
    assert "the grading process died" in rows["killer"]["note"] and float(rows["killer"]["total"]) == 0
    assert all(float(rows[sid]["total"]) == results_of(out, sid)["score"] for sid in ids)
    assert not os.path.exists(out / "killer" / "results.json")  # not finished: the next run tries again
    assert os.listdir(tmp) == []


def test_a_kill_of_the_parent_group_costs_no_one_else(tmp_path):
    """tests/attacks/ex4_masking__kill_parent_group_at_import.py in a class of
    two, one worker: at import, ex4's child SIGKILLs the process group of the
    process that started it. In the sandbox that is kill(-1) (the zygote is
    process 1, of group 1) and must cost nobody anything: the other student
    keeps full marks, and so does every other exercise of the attacker (ex3's
    child, graded while ex4's was started ahead, died of it). Without a
    sandbox the kill reaches the worker itself (test_a_dead_worker_is_replaced):
    the batch must still complete, and the honest student keep full marks.
    The attacker, mallory, comes second, as in most of a class: with a warm
    worker ex3's checks are still running when the kill comes (graded first,
    ex3 lost points in about half the runs; second, in most)."""
    from grader.engine import sandbox as sandbox_mod

    sandboxed = sandbox_mod.available()
    d, out, tmp = tmp_path / "subs", tmp_path / "out", tmp_path / "tmp"
    with open(os.path.join(ROOT, "tests", "attacks", "ex4_masking__kill_parent_group_at_import.py"), encoding="utf-8") as f:
        attack = f.read().replace("__ATTACK_TAG__", "atkbatchkillpgp")
    make_submission(d / "mallory", {"ex4_masking": attack})
    make_submission(d / "honest")
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "batch", str(d), "--out", str(out), "--jobs", "1", "--sandbox", "require" if sandboxed else "off"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(tmp),
        start_new_session=True,  # whatever it kills stays in this session
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = by_id(read_csv(out))
    assert sorted(rows) == ["honest", "mallory"]
    full = maxima(results_of(out, "honest"))
    assert sum(full.values()) == TOTAL
    assert points(rows["honest"]) == full and rows["honest"]["note"] == "", rows["honest"]
    if not sandboxed:
        return
    got = points(rows["mallory"])
    lost = {ex: (got[ex], full[ex]) for ex in IDS if ex != "ex4_masking" and got[ex] != full[ex]}
    failed = [(t["name"], t["output"][:300]) for t in results_of(out, "mallory")["tests"] if t["status"] == "failed" and t["tags"][0] != "ex4_masking"]
    assert not lost, f"the attack on ex4_masking cost other exercises points: {lost}\n{failed}"
