"""``batch --db URL``: the grades go into a course's own nbgrader gradebook,
SQLite or PostgreSQL, beside an assignment that was there before, which
keeps every row as it was; a regrade updates this assignment in place; and
nbgrader's own ``export`` reads the result.

The PostgreSQL server is a throwaway cluster (Debian's ``postgresql``,
which .ci/run installs) started on a Unix socket in a temporary folder.
"""

import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import pytest
from conftest import ROOT, python_m_grader

from grader.exercises import BY_ID

pytest.importorskip("nbgrader")
MISTAKE = os.path.join(ROOT, "tests", "catalogue", "wrong", "ex0_weighted_sum__float32_cast.py")
FULL = BY_ID["ex0_weighted_sum"].points


def run_batch(folder, out, *args, tmp) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmp), PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    os.makedirs(tmp, exist_ok=True)
    return python_m_grader(["batch", folder, "--out", out, "--no-report", *args], cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """ada hands in ex0 as a notebook with the reference in its answer cell;
    bo a catalogue mistake as a .py. Neither hands in anything else."""
    folder = tmp_path_factory.mktemp("class")
    with open(os.path.join(ROOT, "notebooks", BY_ID["ex0_weighted_sum"].notebook), encoding="utf-8") as f:
        nb = json.load(f)
    with open(os.path.join(ROOT, "solutions", "ex0_weighted_sum.py"), encoding="utf-8") as f:
        answer = f.read()
    next(c for c in nb["cells"] if c["metadata"].get("exercise"))["source"] = answer
    (folder / "ada").mkdir()
    (folder / "ada" / "ex0_weighted_sum.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (folder / "bo").mkdir()
    shutil.copy(MISTAKE, folder / "bo" / "ex0_weighted_sum.py")
    return folder


def gradebook(url: str):
    """nbgrader's Gradebook on ``url``, stamped the way the batch's writer
    stamps a new one (nbgrader would run its alembic script)."""
    import nbgrader.api

    from grader.teacher.batch.gradebook import _version_in_process

    _version_in_process(nbgrader.api)
    return nbgrader.api.Gradebook(url)


def seed(url: str) -> None:
    """A gradebook as a course has it: week1, graded by hand and by nbgrader,
    and ada with her name and email."""
    with warnings.catch_warnings(), gradebook(url) as gb:
        warnings.simplefilter("ignore")  # SQLAlchemy's, about nbgrader's own code
        gb.add_assignment("week1", duedate="2026-11-01 17:00:00")
        gb.add_notebook("problems", "week1")
        gb.add_grade_cell("q1", "problems", "week1", max_score=5, cell_type="code")
        gb.add_grade_cell("q2", "problems", "week1", max_score=3, cell_type="markdown")
        gb.add_student("ada", first_name="Ada", last_name="Lovelace", email="ada@example.org")
        gb.add_student("zoe")
        for student, auto, manual in (("ada", 5, 2), ("zoe", 1, 3)):
            gb.add_submission("week1", student, timestamp="2026-10-31 12:00:00")
            q1 = gb.find_grade("q1", "problems", "week1", student)
            q1.auto_score = auto
            q2 = gb.find_grade("q2", "problems", "week1", student)
            q2.manual_score = manual
            gb.db.commit()


def rows(url: str) -> dict[str, set]:
    """Every row of every table, by table."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        meta = sqlalchemy.MetaData()
        meta.reflect(engine)
        with engine.connect() as con:
            return {name: {tuple(r) for r in con.execute(table.select())} for name, table in meta.tables.items()}
    finally:
        engine.dispose()


def export(url: str, tmp) -> dict:
    """nbgrader export's CSV: (assignment, student) -> raw score."""
    out = os.path.join(str(tmp), "export.csv")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--db", url, "--to", out], cwd=str(tmp), capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out, encoding="utf-8", newline="") as f:
        return {(r["assignment"], r["student_id"]): float(r["raw_score"]) for r in csv.DictReader(f)}


def added_beside_week1(db: str, klass, tmp) -> None:
    url = db if "://" in db else f"sqlite:///{db}"
    seed(url)
    before = rows(url)
    proc = run_batch(klass, tmp / "out", "--db", db, tmp=tmp / "t")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not os.path.exists(tmp / "out" / "gradebook.db")  # the course's gradebook, not a new one
    after = rows(url)
    for table, old in before.items():
        assert old <= after[table], f"{table}: a row of the gradebook changed"
    got = export(url, tmp)
    assert got[("week1", "ada")] == 7 and got[("week1", "zoe")] == 4
    assert got[("attention", "ada")] == FULL
    assert 0 < got[("attention", "bo")] < FULL
    assert ("week1", "bo") in got  # nbgrader lists every student under every assignment

    # A regrade changes no row outside the assignment and adds none to it.
    proc = run_batch(klass, tmp / "out", "--db", db, "--force", tmp=tmp / "t")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    again = rows(url)
    for table, old in after.items():
        assert len(again[table]) == len(old), table
    for table, old in before.items():
        assert old <= again[table], table
    assert export(url, tmp) == got


def test_a_missing_gradebook_file_is_a_usage_error(klass, tmp_path):
    proc = run_batch(klass, tmp_path / "out", "--db", str(tmp_path / "typo.db"), tmp=tmp_path / "t")
    assert proc.returncode == 2
    assert "找不到成绩册 / no such gradebook" in proc.stderr
    assert not os.path.exists(tmp_path / "typo.db") and not os.path.exists(tmp_path / "out" / "grades.csv")


def test_nbgraders_own_assignment_of_that_name_is_refused(klass, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with gradebook(url) as gb:
        gb.add_assignment("attention")
        gb.add_notebook("ex0_weighted_sum", "attention")
    before = rows(url)
    proc = run_batch(klass, tmp_path / "out", "--db", url, tmp=tmp_path / "t")
    assert "--assignment" in proc.stderr and "nbgrader" in proc.stderr, proc.stderr
    assert rows(url) == before
    assert os.path.exists(tmp_path / "out" / "grades.csv")  # the batch itself went on


def _postgres_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@pytest.fixture
def postgres():
    """A PostgreSQL server of its own, on a socket in a temporary folder: its URL."""
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if not (initdb and pg_ctl):
        if os.environ.get("ATTENTION_CI"):
            pytest.fail("PostgreSQL is not installed (.ci/run installs Debian's postgresql)")
        pytest.skip("PostgreSQL is not installed")
    pytest.importorskip("psycopg")
    folder = tempfile.mkdtemp(prefix="attention-pg-")
    as_user = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        import pwd

        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(folder, "data")
    try:
        subprocess.run([*as_user, initdb, "-D", data, "-A", "trust", "-U", "course", "--no-sync"], check=True, capture_output=True)
        subprocess.run(
            [*as_user, pg_ctl, "-D", data, "-w", "-l", os.path.join(folder, "log"), "-o", f"-k {folder} -c listen_addresses='' -c fsync=off", "start"],
            check=True,
            capture_output=True,
        )
        yield f"postgresql+psycopg://course@/postgres?host={folder}"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", data, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_postgresql_gradebook(postgres, klass, tmp_path):
    added_beside_week1(postgres, klass, tmp_path)


def test_sqlite_gradebook_by_its_path(klass, tmp_path):
    """(docs/teachers/nbgrader.md's own batch --db, into the gradebook nbgrader autograde
    wrote, is test_nbgrader_course's.)"""
    added_beside_week1(str(tmp_path / "gradebook.db"), klass, tmp_path)
