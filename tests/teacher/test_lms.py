"""Canvas and Moodle, in and out: their downloads graded by ``batch`` (as
folders and as zips) with a late policy, and the grades put back into
their own files by ``export``, checked cell by cell.

The files are shaped as the platforms write them (grader/teacher/
intake/canvas.py and moodle.py, platforms/lms_export.py and
intake/moodle_worksheet.py name the sources):
Canvas's flat ``<name>[_LATE]_<user id>_<attachment id>_<file>``, its
gradebook CSV with the "Points Possible" and "Manual Posting" rows;
Moodle's ``<Full Name>_<participant id>_assignsubmission_file`` folders
(and the flat form), its grading worksheet with "Participant N" and
userdate's times.
"""

import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import python_m_grader

from grader.exercises import EXERCISES
from grader.teacher.batch.grades_csv import FORMULA_START

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, STUBS = ROOT / "solutions", ROOT / "exercises"
MISTAKE = ROOT / "tests" / "catalogue" / "wrong" / "ex0_weighted_sum__softmax_dim0.py"
FULL = sum(e.points for e in EXERCISES)
EX0 = EXERCISES[0]


def grader(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return python_m_grader(args, cwd=cwd, env=env, timeout=900)


def rows_of(path) -> list[list[str]]:
    text = Path(path).read_bytes().decode("utf-8").removeprefix("\ufeff")
    delimiter = ";" if text.split("\n", 1)[0].count(";") > 1 else ","
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


def grades(out) -> dict[str, dict]:
    with open(Path(out) / "grades.csv", encoding="utf-8", newline="") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


# ------------------------------------------------------------- Canvas


def canvas_download(d: Path) -> Path:
    """A class as Canvas's "Download Submissions" lays it out.

    - 101 Smith, John: every solution, on time;
    - 102 Müller, Jürgen: late; the stubs, then ex0's solution uploaded again
      under the same name (Canvas: ``-1``), and ex1 twice under one name
      (two attachments): the newer of each is graded;
    - 103 Zhang, Wei: a text entry only;
    - 104 李, 娜: late (the times file gives the hours), one zip of solutions in a folder;
    - 105 O'Brien, Seán: ex0 with a known mistake, marked LATE, no time: one day;
    - 106 Gone, Student: in the download, not in the gradebook export.
    """
    d.mkdir(parents=True)
    attachment = iter(range(5000, 6000))

    def upload(prefix: str, src: Path, name: str | None = None):
        (d / f"{prefix}_{next(attachment)}_{name or src.name}").write_bytes(src.read_bytes())

    for f in sorted(SOLUTIONS.glob("*.py")):
        upload("smithjohn_101", f)
    for f in sorted(STUBS.glob("*.py")):
        upload("müllerjürgen_LATE_102", f)
    upload("müllerjürgen_LATE_102", SOLUTIONS / EX0.filename, EX0.filename.replace(".py", "-1.py"))
    upload("müllerjürgen_LATE_102", SOLUTIONS / "ex1_averaging.py")  # a newer attachment, the same name
    (d / "zhangwei_103_text.html").write_text("<p>see attached</p>", encoding="utf-8")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for f in sorted(SOLUTIONS.glob("*.py")):
            z.writestr(f"my work/{f.name}", f.read_bytes())
    (d / f"李娜_LATE_104_{next(attachment)}_作业.zip").write_bytes(buf.getvalue())
    upload("obrienseán_LATE_105", MISTAKE, EX0.filename)
    for f in sorted(SOLUTIONS.glob("*.py"))[:2]:
        upload("gonestudent_106", f)
    return d


GRADEBOOK = [
    [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Week 1 (555)",
        "Attention (777)",
        "Current Points",
        "Final Points",
        "Current Score",
        "Unposted Current Score",
        "Final Score",
        "Unposted Final Score",
    ],
    ["", "", "", "", "", "Manual Posting", "", "", "", "", "", "", ""],
    ["    Points Possible", "", "", "", "", "10.00", "50.00", "(read only)", "(read only)", "(read only)", "(read only)", "(read only)", "(read only)"],
    ["Smith, John", "101", "S101", "jsmith", "Section A", "9.00", "", "9.00", "9.00", "90.00", "90.00", "90.00", "90.00"],
    ["Müller, Jürgen", "102", "S102", "jmuller", "Section A", "8.50", "", "8.50", "8.50", "85.00", "85.00", "85.00", "85.00"],
    ["Zhang, Wei", "103", "S103", "wzhang", "Section B", "", "", "0.00", "0.00", "", "", "0.00", "0.00"],
    ["李, 娜", "104", "S104", "lina", "Section B", "10.00", "", "10.00", "10.00", "100.00", "100.00", "100.00", "100.00"],
    ["O'Brien, Seán", "105", "", "sobrien", "Section B", "7.00", "", "7.00", "7.00", "70.00", "70.00", "70.00", "70.00"],
    ["Student, Test", "999", "", "test_student", "Section A", "", "", "", "", "", "", "", ""],
]
# Canvas's own Test Student, as its exporter writes it: after every student,
# the login Canvas::Security.hmac_sha1("Test Student_<id>") (40 hex digits).
TEST_STUDENT_ROW = ["Student, Test", "1000", "", "6f1ed002ab5595859014ebf0951522d9ab8a3e1c", "Section A", "", "", "", "", "", "", "", ""]


def write_gradebook(path: Path, rows, bom=False, delimiter=","):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + buf.getvalue().encode("utf-8"))


POLICY = """\
due = 2026-12-10T23:59:00+08:00
late_penalty_per_day = 10      # percent of the points, per started day late
max_penalty = 50               # percent
grace_days = 0
times = "times.csv"
"""


@pytest.fixture(scope="module")
def canvas(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("canvas")
    download = canvas_download(tmp / "course-attention submissions")
    shutil.make_archive(str(tmp / "submissions"), "zip", download)  # files at the zip's root, as Canvas's
    (tmp / "course.toml").write_text(POLICY, encoding="utf-8")
    (tmp / "times.csv").write_text("student_id,submitted_at\n104,2026-12-12T10:00:00+08:00\n", encoding="utf-8")
    folder = grader("batch", download, "--out", tmp / "out", "--policy", tmp / "course.toml")
    zipped = grader("batch", tmp / "submissions.zip", "--out", tmp / "out-zip", "--policy", tmp / "course.toml")
    return {"tmp": tmp, "folder": folder, "zip": zipped}


def test_canvas_download_is_recognised_and_graded(canvas):
    assert canvas["folder"].returncode == 0, canvas["folder"].stderr
    assert canvas["folder"].stdout.splitlines()[0].endswith("Canvas's Download Submissions")
    g = grades(canvas["tmp"] / "out")
    assert sorted(g) == ["101", "102", "103", "104", "105", "106"]  # keyed by Canvas user id
    assert g["101"]["raw"] == g["101"]["total"] == str(FULL)
    assert (g["101"]["name"], g["102"]["name"], g["104"]["name"]) == ("smithjohn", "müllerjürgen", "李娜")  # kept for display
    # 102: the resubmitted ex0 and the newer of the two ex1 files are graded.
    assert float(g["102"][EX0.id]) == EX0.points and float(g["102"]["ex1_averaging"]) == EXERCISES[1].points
    assert "uploaded more than once" in g["102"]["note"] and "_ex1_averaging.py" in g["102"]["note"]
    assert float(g["102"]["ex2_scores"]) == 0
    assert g["103"]["total"] == "0" and "text entry" in g["103"]["note"]
    assert g["104"]["raw"] == str(FULL)  # the zip inside the download
    assert float(g["105"][EX0.id]) < EX0.points
    results = (canvas["tmp"] / "out" / "104" / "results.json").read_text(encoding="utf-8")
    assert '"name": "李娜"' in results


def test_canvas_late_work(canvas):
    g = grades(canvas["tmp"] / "out")
    # 102: LATE, no time anywhere: one started day, and the source says it is Canvas's marker.
    raw = float(g["102"]["raw"])
    assert (g["102"]["late_days"], g["102"]["time_source"]) == ("1", "Canvas: LATE by Canvas's due date (no time)")
    assert float(g["102"]["penalty"]) == pytest.approx(raw * 0.10) and float(g["102"]["total"]) == pytest.approx(raw * 0.9)
    # 104: the times file gives the hours (1 day 10 hours late: two started days), and wins over LATE.
    assert (g["104"]["late_days"], g["104"]["penalty"], g["104"]["total"]) == ("2", f"{FULL * 0.2:g}", f"{FULL * 0.8:g}")
    assert g["104"]["time_source"] == "times: times.csv" and g["104"]["submitted_at"] == "2026-12-12T10:00:00+08:00"
    # The progress line says the total grades.csv holds, after the penalty, and the penalty beside it.
    said = canvas["folder"].stdout + canvas["folder"].stderr
    assert f"104: {FULL * 0.8:g}/{FULL} (迟交 / late −{FULL * 0.2:g})" in said, said
    # 101 and 103: on time by Canvas's verdict, which is all there is; the source says whose it is, not "LATE".
    assert (g["101"]["late_days"], g["101"]["penalty"]) == ("0", "0")
    assert g["101"]["time_source"] == g["103"]["time_source"] == "Canvas: not LATE by Canvas's due date (no time)"
    feedback = (canvas["tmp"] / "out" / "102" / "feedback.md").read_text(encoding="utf-8")
    assert "no submission time, only Canvas: LATE by Canvas's due date (no time) (late, but not when): counted as 1 day late" in feedback
    assert "只说迟交，没说何时提交" in feedback and "10% of the points taken off" in feedback
    # The bold total is the one after the penalty (what Canvas gets), the points earned beside it.
    assert f"总分 / total: **{float(g['102']['total']):g} / {FULL}**（迟交扣分前 / before the late penalty: {raw:g} / {FULL}）" in feedback
    assert f"**{raw:g} / {FULL}**" not in feedback
    other = (canvas["tmp"] / "out" / "104" / "feedback.md").read_text(encoding="utf-8")
    assert f"总分 / total: **{FULL * 0.8:g} / {FULL}**（迟交扣分前 / before the late penalty: {FULL} / {FULL}）" in other
    assert "迟交" not in (canvas["tmp"] / "out" / "101" / "feedback.md").read_text(encoding="utf-8")
    report = (canvas["tmp"] / "out" / "report.md").read_text(encoding="utf-8")
    late_section = report.split("迟交 / Late work", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1].strip() for line in late_section.splitlines() if line.startswith("| [")]
    assert rows == ["[104 李娜](104/feedback.md)", "[102 müllerjürgen](102/feedback.md)", "[105 obrienseán](105/feedback.md)"]  # most days first


def test_the_class_zip_grades_as_its_folder(canvas):
    assert canvas["zip"].returncode == 0, canvas["zip"].stderr
    assert canvas["zip"].stdout.splitlines()[0].endswith("Canvas's Download Submissions")
    folder, zipped = grades(canvas["tmp"] / "out"), grades(canvas["tmp"] / "out-zip")
    assert folder == zipped


def test_canvas_resumes_and_a_new_extension_restates_the_penalty(canvas, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(canvas["tmp"] / "out", out)
    again = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", out, "--policy", canvas["tmp"] / "course.toml", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert "评分 / grading" not in again.stdout + again.stderr and "skipped 5 already graded" in again.stdout + again.stderr
    assert grades(out) == grades(canvas["tmp"] / "out")
    # An extension for 104 to after their time: no penalty, without grading again.
    policy = tmp_path / "course.toml"
    policy.write_text(POLICY.replace('times = "times.csv"', 'times = "times.csv"\nextensions = "ext.csv"'), encoding="utf-8")
    shutil.copy(canvas["tmp"] / "times.csv", tmp_path / "times.csv")
    (tmp_path / "ext.csv").write_text("student_id,due\n104,2026-12-13T00:00:00+08:00\n", encoding="utf-8")
    third = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", out, "--policy", policy, "--jobs", "1")
    assert third.returncode == 0, third.stderr
    assert "评分 / grading" not in third.stdout + third.stderr  # nobody graded again
    g = grades(out)
    assert (g["104"]["late_days"], g["104"]["total"]) == ("0", str(FULL))
    assert "迟交 / late work" not in (out / "104" / "feedback.md").read_text(encoding="utf-8")
    assert "迟交 / late work" in (out / "102" / "feedback.md").read_text(encoding="utf-8")
    # No policy any more: no penalty anywhere, still without grading again.
    fourth = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", out, "--jobs", "1")
    assert fourth.returncode == 0 and "评分 / grading" not in fourth.stdout + fourth.stderr
    g = grades(out)
    assert "penalty" not in g["102"] and g["102"]["total"] == canvas_raw(canvas, "102")
    assert "迟交 / late work" not in (out / "102" / "feedback.md").read_text(encoding="utf-8")
    assert '"late"' not in (out / "102" / "results.json").read_text(encoding="utf-8")


def canvas_raw(canvas, sid: str) -> str:
    return grades(canvas["tmp"] / "out")[sid]["raw"]


def test_canvas_export_fills_one_column_and_keeps_every_other_cell(canvas, tmp_path):
    exported = tmp_path / "export.csv"
    write_gradebook(exported, GRADEBOOK)
    to = tmp_path / "import.csv"
    args = ("export", "canvas", canvas["tmp"] / "out", "--gradebook", exported, "--column", "Attention (777)", "--to", to)
    refused = grader(*args)
    # 106 is in no row, the test student has no result: listed, nothing written.
    assert refused.returncode == 1 and not to.exists()
    assert "106" in refused.stderr and "Student, Test (999)" in refused.stderr
    done = grader(*args, "--allow-unmatched")
    assert done.returncode == 0, done.stderr
    assert "50" in done.stdout  # scaled to the column's points possible
    g = grades(canvas["tmp"] / "out")
    want = [list(r) for r in GRADEBOOK]
    col = want[0].index("Attention (777)")
    for row in want[3:]:
        if row[1] in g:
            row[col] = f"{round(float(g[row[1]]['total']) * 50 / FULL, 2):g}"
    got = rows_of(to)
    assert len(got) == len(want)
    for i, (w, r) in enumerate(zip(want, got)):
        assert r == w, f"row {i}"
    assert to.read_bytes()[:3] != b"\xef\xbb\xbf" and b"\r\n" in to.read_bytes()


def test_canvas_export_matches_by_sis_login_then_name_and_keeps_bom_and_semicolons(canvas, tmp_path):
    """A gradebook whose ids are not the batch's: 101 by SIS login (a class
    graded from folders named by login would be), 102 by name."""
    rows = [list(r) for r in GRADEBOOK[:5]]
    rows[3][1], rows[3][3] = "9101", "101"  # Canvas id differs; the SIS login is the batch's id
    rows[4][1], rows[4][3] = "9102", "x"  # only the name is left: "Müller, Jürgen" ~ "müllerjürgen"
    exported = tmp_path / "export.csv"
    write_gradebook(exported, rows, bom=True, delimiter=";")
    to = tmp_path / "import.csv"
    done = grader("export", "canvas", canvas["tmp"] / "out", "--gradebook", exported, "--column", "Attention (777)", "--to", to, "--allow-unmatched")
    assert done.returncode == 0, done.stderr
    assert to.read_bytes().startswith(b"\xef\xbb\xbf")
    got = rows_of(to)
    g = grades(canvas["tmp"] / "out")
    assert got[3][6] == f"{round(float(g['101']['total']) * 50 / FULL, 2):g}".replace(".", ",")
    assert got[4][6] == f"{round(float(g['102']['total']) * 50 / FULL, 2):g}".replace(".", ",")
    assert [r[:6] + r[7:] for r in got] == [r[:6] + r[7:] for r in rows]
    # The title alone names the column when only one has it.
    titled = grader("export", "canvas", canvas["tmp"] / "out", "--gradebook", exported, "--column", "Attention", "--to", tmp_path / "t.csv", "--allow-unmatched")
    assert titled.returncode == 0, titled.stderr
    assert rows_of(tmp_path / "t.csv") == got


def test_names_from_the_platform_reach_the_terminal_as_text(canvas, tmp_path):
    """A student picks their own platform name: the export's list of the
    unmatched shows its control characters escaped."""
    exported = tmp_path / "export.csv"
    write_gradebook(exported, GRADEBOOK + [["Evil\x1b]0;owned\x07\x1b[2J, Eve", "777", "", "eve", "Section A", *[""] * 8]])
    proc = grader("export", "canvas", canvas["tmp"] / "out", "--gradebook", exported, "--column", "Attention (777)", "--to", tmp_path / "x.csv")
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "Evil\\x1b]0;owned\\x07\\x1b[2J, Eve (777)" in proc.stderr


def test_export_usage_errors(canvas, tmp_path):
    exported = tmp_path / "export.csv"
    write_gradebook(exported, GRADEBOOK)
    wrong = grader("export", "canvas", canvas["tmp"] / "out", "--gradebook", exported, "--column", "Attention (778)", "--to", tmp_path / "x.csv")
    assert wrong.returncode == 2 and "Attention (777)" in wrong.stderr
    (tmp_path / "not.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    not_canvas = grader("export", "canvas", canvas["tmp"] / "out", "--gradebook", tmp_path / "not.csv", "--column", "a", "--to", tmp_path / "x.csv")
    assert not_canvas.returncode == 2 and "Canvas" in not_canvas.stderr
    no_batch = grader("export", "moodle", tmp_path, "--worksheet", exported, "--to", tmp_path / "x.csv")
    assert no_batch.returncode == 2 and "grades.csv" in no_batch.stderr
    assert not (tmp_path / "x.csv").exists()


# ------------------------------------------------------------- Moodle


WORKSHEET = [
    ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed", "Last modified (submission)", "Online text", "Last modified (grade)", "Feedback comments"],
    ["Participant 2001", "Li Hua", "lihua@example.edu", "Submitted for grading", "", "100.00", "Yes", "Thursday, 10 December 2026, 11:59 PM", "", "-", ""],
    ["Participant 2002", "Ana María", "ana@example.edu", "Submitted for grading", "", "100.00", "Yes", "Friday, 11 December 2026, 9:05 AM", "<p>see the zip</p>", "-", ""],
    ["Participant 2003", "Ólafur Arnalds", "olafur@example.edu", "Submitted for grading", "", "100.00", "Yes", "Sunday, 13 December 2026, 8:00 PM", "", "-", ""],
    ["Participant 2004", "Bo Chen", "bo@example.edu", "No submission", "", "100.00", "Yes", "-", "", "-", ""],
    ["Participant 2005", '=HYPERLINK("x")', "eve@example.edu", "Submitted for grading", "", "100.00", "Yes", "Thursday, 10 December 2026, 10:00 AM", "", "-", ""],
]


def moodle_download(d: Path, flat: bool) -> Path:
    """2001 every solution at 23:59 (on time to the minute); 2002 a zip of
    stubs and online text, late; 2003 ex0's known mistake, late but with an
    extension; 2005 every solution, with a name a spreadsheet would run."""
    d.mkdir(parents=True)

    def put(prefix: str, name: str, data: bytes):
        path = d / f"{prefix}_assignsubmission_file_{name}" if flat else d / f"{prefix}_assignsubmission_file" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)

    for f in sorted(SOLUTIONS.glob("*.py")):
        put("Li Hua_2001", f.name, f.read_bytes())
        put('=HYPERLINK("x")_2005', f.name, f.read_bytes())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for f in sorted(STUBS.glob("*.py")):
            z.writestr(f.name, f.read_bytes())
    put("Ana María_2002", "work.zip", buf.getvalue())
    text = d / ("Ana María_2002_assignsubmission_onlinetext_onlinetext.html" if flat else "Ana María_2002_assignsubmission_onlinetext/onlinetext.html")
    text.parent.mkdir(exist_ok=True)
    text.write_text("<!DOCTYPE html><html><body>see the zip</body></html>", encoding="utf-8")
    put("Ólafur Arnalds_2003", EX0.filename, MISTAKE.read_bytes())
    return d


MOODLE_POLICY = """\
due = 2026-12-10T23:59:00
timezone = "Asia/Shanghai"
late_penalty_per_day = 10
max_penalty = 50
grace_days = 1
extensions = "extensions.csv"
"""


@pytest.fixture(scope="module")
def moodle(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("moodle")
    moodle_download(tmp / "folders", flat=False)
    flat = moodle_download(tmp / "flat", flat=True)
    shutil.make_archive(str(tmp / "flat"), "zip", flat)
    write_gradebook(tmp / "worksheet.csv", WORKSHEET)
    (tmp / "course.toml").write_text(MOODLE_POLICY, encoding="utf-8")
    (tmp / "extensions.csv").write_text("student_id,due\n2003,2026-12-13T23:59\n", encoding="utf-8")
    common = ("--policy", tmp / "course.toml", "--worksheet", tmp / "worksheet.csv")
    folders = grader("batch", tmp / "folders", "--out", tmp / "out", *common)
    zipped = grader("batch", tmp / "flat.zip", "--out", tmp / "out-flat", *common)
    return {"tmp": tmp, "folders": folders, "flat": zipped}


def test_moodle_download_folders_and_flat_zip(moodle):
    for run, out in ((moodle["folders"], "out"), (moodle["flat"], "out-flat")):
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines()[0].endswith("Moodle's Download all submissions")
    g = grades(moodle["tmp"] / "out")
    assert g == grades(moodle["tmp"] / "out-flat")
    assert sorted(g) == ["2001", "2002", "2003", "2005"]  # keyed by participant id
    assert g["2002"]["name"] == "Ana María" and g["2005"]["name"] == '\'=HYPERLINK("x")'  # a formula stays text
    assert g["2001"]["raw"] == str(FULL) and g["2005"]["raw"] == str(FULL)
    assert "online text" in g["2002"]["note"] and g["2002"]["raw"] == "0"
    assert float(g["2003"][EX0.id]) < EX0.points


def test_moodle_late_work_from_the_worksheet(moodle):
    g = grades(moodle["tmp"] / "out")
    # 23:59 in Shanghai, the deadline itself: on time.
    assert (g["2001"]["late_days"], g["2001"]["submitted_at"], g["2001"]["time_source"]) == ("0", "2026-12-10T23:59:00+08:00", "worksheet: worksheet.csv")
    # 9:05 AM the day after: one day, spent from the grace days.
    assert (g["2002"]["late_days"], g["2002"]["penalty"]) == ("1", "0")
    # 2003: three days after the course's deadline, before their extension's.
    assert (g["2003"]["late_days"], g["2003"]["penalty"]) == ("0", "0")
    # 2005: on time.
    assert g["2005"]["total"] == str(FULL)


def test_moodle_export_fills_grade_and_comments_cell_by_cell(moodle, tmp_path):
    to = tmp_path / "filled.csv"
    args = ("export", "moodle", moodle["tmp"] / "out", "--worksheet", moodle["tmp"] / "worksheet.csv", "--to", to)
    done = grader(*args)  # Bo Chen (2004) has "No submission": left alone, not a reason to stop
    assert done.returncode == 0, done.stderr
    assert "left alone: “No submission” in Moodle's worksheet: Bo Chen (2004)" in done.stderr
    g = grades(moodle["tmp"] / "out")
    got = rows_of(to)
    assert len(got) == len(WORKSHEET)
    grade, comments = WORKSHEET[0].index("Grade"), WORKSHEET[0].index("Feedback comments")
    for want, row in zip(WORKSHEET, got):
        pid = want[0].removeprefix("Participant ")
        if pid in g:
            assert row[grade] == f"{round(float(g[pid]['total']) * 100 / FULL, 2):g}", pid
            assert row[comments].startswith("总分 / total") and not row[comments].startswith(FORMULA_START)
            assert f"{EX0.id} {float(g[pid][EX0.id]):g}/{EX0.points}" in row[comments]
            # Moodle saves the comment as HTML (FORMAT_HTML): a line each, joined by <br>, nothing else of HTML.
            assert "\n" not in row[comments] and "<br>" in row[comments], row[comments]
            assert "<" not in row[comments].replace("<br>", "") and ">" not in row[comments].replace("<br>", ""), row[comments]
        else:
            assert row[grade] == want[grade] and row[comments] == want[comments]
        assert [c for i, c in enumerate(row) if i not in (grade, comments)] == [c for i, c in enumerate(want) if i not in (grade, comments)]
    by_pid = {r[0]: r for r in got}
    assert "softmax" in by_pid["Participant 2003"][comments].lower()  # the mistake the checks found, by name
    assert "1 day(s) late" not in by_pid["Participant 2001"][comments]


def test_platform_rows_not_to_grade_are_left_alone_and_real_mismatches_stop(canvas, moodle, tmp_path):
    """Canvas's Test Student in other shapes (a translated name with its
    hashed login; the LastName/FirstName layout; two sections' worth, last)
    and Moodle's "No submission" with more after it are left alone, the file
    written. A student who only calls themselves "Test Student", among the
    others, and a Moodle draft with no result still stop the export."""

    def export(platform, *args):
        to = tmp_path / f"{platform}-{len(list(tmp_path.iterdir()))}.csv"
        out = (canvas if platform == "canvas" else moodle)["tmp"] / "out"
        return grader("export", platform, out, *args, "--to", to), to

    everyone = GRADEBOOK[:-1] + [["Gone, Student", "106", "", "gone", "Section A", *[""] * 8]]
    hashed = "d" * 40
    # A translated Test Student (Canvas in Chinese), known by its hashed login; and the English one after it.
    write_gradebook(tmp_path / "zh.csv", everyone + [["学生, 测试", "2000", "", hashed, "Section B", *[""] * 8], ["Student, Test", "2001", "", "e" * 40, "Section A", *[""] * 8]])
    proc, to = export("canvas", "--gradebook", tmp_path / "zh.csv", "--column", "Attention (777)")
    assert proc.returncode == 0, proc.stderr
    assert "left alone: Canvas's Test Student (Student View), not a student: Student, Test (2001), 学生, 测试 (2000)" in proc.stderr
    assert rows_of(to)[-2:] == [["学生, 测试", "2000", "", hashed, "Section B", *[""] * 8], ["Student, Test", "2001", "", "e" * 40, "Section A", *[""] * 8]]
    # LastName, FirstName columns.
    split = [["LastName", "FirstName", *GRADEBOOK[0][1:]]] + [[r[0].split(", ")[0], (r[0].split(", ") + [""])[1], *r[1:]] for r in everyone[1:] + [TEST_STUDENT_ROW]]
    split[1][:2] = ["", ""]
    split[2][:2] = ["    Points Possible", ""]
    write_gradebook(tmp_path / "split.csv", split)
    proc, to = export("canvas", "--gradebook", tmp_path / "split.csv", "--column", "Attention (777)")
    assert proc.returncode == 0 and "not a student: Student, Test (1000)" in proc.stderr, proc.stderr
    # A real student named "Test Student" with no result, among the others: not Canvas's, so the export stops.
    write_gradebook(tmp_path / "named.csv", everyone[:4] + [["Student, Test", "3000", "", "tstudent", "Section A", *[""] * 8]] + everyone[4:] + [TEST_STUDENT_ROW])
    proc, to = export("canvas", "--gradebook", tmp_path / "named.csv", "--column", "Attention (777)")
    assert proc.returncode == 1 and not to.exists()
    assert "no result, a student of the platform's file not in the batch: Student, Test (3000)" in proc.stderr
    assert "not a student: Student, Test (1000)" in proc.stderr

    # Moodle: "No submission" followed by what else col_status says; a draft without a result stops it.
    sheet = [list(r) for r in WORKSHEET]
    sheet[4][3] = "No submission - Overdue by: 3 days 2 hours"
    sheet.append(["Participant 2006", "Kai Wu", "kai@example.edu", "No submission - Extension granted until: Friday, 18 December 2026, 11:59 PM", "", "100.00", "Yes", "-", "", "-", ""])
    write_gradebook(tmp_path / "sheet.csv", sheet)
    proc, to = export("moodle", "--worksheet", tmp_path / "sheet.csv")
    assert proc.returncode == 0, proc.stderr
    assert "left alone: “No submission” in Moodle's worksheet: Bo Chen (2004), Kai Wu (2006)" in proc.stderr
    assert rows_of(to)[4] == sheet[4] and rows_of(to)[6] == sheet[6]
    sheet[6][3] = "Draft (not submitted)"
    write_gradebook(tmp_path / "draft.csv", sheet)
    proc, to = export("moodle", "--worksheet", tmp_path / "draft.csv")
    assert proc.returncode == 1 and not to.exists()
    assert "no result, a student of the platform's file not in the batch: Kai Wu (2006)" in proc.stderr and "Bo Chen (2004)" in proc.stderr


def test_the_gradebook_has_nbgraders_late_penalty(canvas, tmp_path):
    """nbgrader's own export reads the penalty the batch wrote."""
    out = canvas["tmp"] / "out"
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    exported = tmp_path / "nbgrader.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--db", f"sqlite:///{out}/gradebook.db", "--to", str(exported)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(exported, encoding="utf-8", newline="") as f:
        got = {r["student_id"]: r for r in csv.DictReader(f)}
    g = grades(out)
    for sid, r in g.items():
        assert float(got[sid]["raw_score"]) == pytest.approx(float(r["raw"])), sid
        assert float(got[sid]["late_submission_penalty"] or 0) == pytest.approx(float(r["penalty"])), sid
        assert float(got[sid]["score"]) == pytest.approx(float(r["total"])), sid
    assert got["104"]["duedate"].startswith("2026-12-10 15:59:00")  # the deadline, in UTC as nbgrader keeps it
    assert got["104"]["timestamp"].startswith("2026-12-12 02:00:00")
    con = sqlite3.connect(out / "gradebook.db")
    assert con.execute("select count(*) from submitted_notebook where late_submission_penalty > 0").fetchone()[0] == 3
    con.close()


def test_bad_policy_grades_no_one(canvas, tmp_path):
    (tmp_path / "course.toml").write_text('due = 2026-12-10T23:59:00+08:00\nextensions = "ext.csv"\n', encoding="utf-8")
    (tmp_path / "ext.csv").write_text("student_id,due\n101,2026-12-12T00:00:00+08:00\n1o7,2026-12-12T00:00:00+08:00\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", out, "--policy", tmp_path / "course.toml")
    assert proc.returncode == 2
    assert "'1o7'" in proc.stderr and "line 3" in proc.stderr and "第 3 行" in proc.stderr
    assert not (out / "grades.csv").exists() and not (out / "101").exists()
    (tmp_path / "course.toml").write_text("due = 2026-12-10 25:00\n", encoding="utf-8")
    proc = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", out, "--policy", tmp_path / "course.toml")
    assert proc.returncode == 2 and "line 1" in proc.stderr and not (out / "grades.csv").exists()


def test_without_a_policy_grades_csv_is_as_before(canvas, tmp_path):
    proc = grader("batch", canvas["tmp"] / "course-attention submissions", "--out", tmp_path / "out", "--no-report")
    assert proc.returncode == 0, proc.stderr
    header = rows_of(tmp_path / "out" / "grades.csv")[0]
    assert header == ["student_id", "name", *(e.id for e in EXERCISES), "total", "note"]
    assert "迟交" not in (tmp_path / "out" / "102" / "feedback.md").read_text(encoding="utf-8")


# ------------------------------------------------- the page's commands


def test_the_pages_canvas_and_moodle_commands(tmp_path):
    """docs/teachers/lms.md's "From the download to the import" commands, run as written,
    with its course.toml, on a Canvas and a Moodle download whose files
    hold what every real class's do: Canvas's Test Student, last in the
    gradebook, and a Moodle participant with "No submission". Each export
    ends with 0, lists them as left alone and writes the file, their rows
    as they were."""
    sys.path.insert(0, str(ROOT / "tests"))
    from readme_sections import Shell, blocks, commands, page

    section, lms = "From the download to the import", page("teachers/lms.md")
    (tmp_path / "course.toml").write_text(blocks(section, "toml", lms)[0], encoding="utf-8")
    (tmp_path / "times.csv").write_text("student_id,submitted_at\n104,2026-12-11T10:00:00+08:00\n", encoding="utf-8")
    shutil.make_archive(str(tmp_path / "canvas-submissions"), "zip", canvas_download(tmp_path / "canvas"))
    shutil.make_archive(str(tmp_path / "moodle-submissions"), "zip", moodle_download(tmp_path / "moodle", flat=False))
    gradebook = GRADEBOOK[:-1] + [["Gone, Student", "106", "", "gone", "Section A", *[""] * 8], TEST_STUDENT_ROW]
    write_gradebook(tmp_path / "canvas-gradebook.csv", gradebook)
    write_gradebook(tmp_path / "moodle-worksheet.csv", WORKSHEET)  # Bo Chen (2004): "No submission"
    shell = Shell(tmp_path)
    (block,) = blocks(section, "bash", lms)
    argvs = commands(block)
    assert [a[4:6] for a in argvs] == [["batch", "canvas-submissions.zip"], ["export", "canvas"], ["batch", "moodle-submissions.zip"], ["export", "moodle"]]
    ran = [shell.run(argv) for argv in argvs]  # each must end with 0
    assert ran[0].stdout.splitlines()[0].endswith("Canvas's Download Submissions")
    assert ran[2].stdout.splitlines()[0].endswith("Moodle's Download all submissions")
    canvas_said, moodle_said = ran[1].stdout + ran[1].stderr, ran[3].stdout + ran[3].stderr
    assert "left alone: Canvas's Test Student (Student View), not a student: Student, Test (1000)" in canvas_said
    assert "filled 6 名学生 / students" in canvas_said and "1 行未改动 / rows left alone" in canvas_said
    assert "left alone: “No submission” in Moodle's worksheet: Bo Chen (2004)" in moodle_said
    assert "filled 4 名学生 / students" in moodle_said
    assert "not written" not in canvas_said + moodle_said and "no result" not in canvas_said + moodle_said
    canvas_rows, moodle_rows = rows_of(tmp_path / "canvas-import.csv"), rows_of(tmp_path / "moodle-filled.csv")
    g = grades(tmp_path / "canvas-out")
    assert g["104"]["late_days"] == "1" and g["104"]["time_source"] == "times: times.csv"
    by_id = {r[1]: r for r in canvas_rows[3:]}
    assert by_id["101"][6] == "50" and by_id["1000"] == TEST_STUDENT_ROW  # the Test Student's row as it was
    assert len(canvas_rows) == len(gradebook)
    by_pid = {r[0]: r for r in moodle_rows[1:]}
    assert by_pid["Participant 2001"][4] == "100" and by_pid["Participant 2004"] == WORKSHEET[4]
    assert len(moodle_rows) == len(WORKSHEET)


def test_a_moodle_zip_a_student_shaped_badly_and_a_timestamp_of_their_own(tmp_path):
    """The class zip holds a file and a folder of one name in Li Hua's
    folder: the batch ends with every row, hers noted. Bo Chen's own
    timestamp.txt says early; the worksheet says a day late, and counts."""
    li, bo, ana = "Li Hua_2001_assignsubmission_file", "Bo Chen_2002_assignsubmission_file", "Ana María_2003_assignsubmission_file"
    solution = (SOLUTIONS / EX0.filename).read_bytes()
    with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as z:
        z.writestr(f"{li}/hw", b"a file")
        z.writestr(f"{li}/hw/{EX0.filename}", solution)
        z.writestr(f"{bo}/{EX0.filename}", solution)
        z.writestr(f"{bo}/timestamp.txt", "2026-12-01 00:00:00.000000 UTC")
        z.writestr(f"{ana}/{EX0.filename}", solution)
    sheet = [WORKSHEET[0]] + [
        [f"Participant {pid}", "", "", "Submitted for grading", "", "100.00", "Yes", when, "", "-", ""]
        for pid, when in (("2001", "Thursday, 10 December 2026, 10:00 AM"), ("2002", "Friday, 11 December 2026, 9:05 AM"), ("2003", "Thursday, 10 December 2026, 11:00 PM"))
    ]
    write_gradebook(tmp_path / "worksheet.csv", sheet)
    (tmp_path / "course.toml").write_text('due = 2026-12-10T23:59:00\ntimezone = "Asia/Shanghai"\nlate_penalty_per_day = 10\n', encoding="utf-8")
    proc = grader("batch", tmp_path / "moodle.zip", "--out", tmp_path / "out", "--policy", tmp_path / "course.toml", "--worksheet", tmp_path / "worksheet.csv")
    assert proc.returncode == 0, proc.stderr
    g = grades(tmp_path / "out")
    assert sorted(g) == ["2001", "2002", "2003"]
    assert "class zip" in g["2001"]["note"] and "class zip" not in g["2002"]["note"] + g["2003"]["note"]
    assert (g["2002"]["late_days"], g["2002"]["time_source"]) == ("1", "worksheet: worksheet.csv")
    assert float(g["2002"]["raw"]) == float(g["2003"]["raw"]) == EX0.points
    assert float(g["2002"]["total"]) == pytest.approx(EX0.points * 0.9)
