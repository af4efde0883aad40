"""What a student controls in a class download, used against the batch:
the name and file names Canvas writes into its download, a row of Canvas's
gradebook, a ``timestamp.txt`` of their own, and the shape of the paths the
class zip holds. Read in-process (``downloads.read``, ``Lateness.of``,
``lms_export.run``), without grading; test_lms.py grades such a class.

Files are shaped as the platforms write them: Canvas's
``<name>[_LATE]_<user id>_<attachment id>_<file name>`` (canvas-lms
lib/content_zipper.rb) and its gradebook export (lib/gradebook_exporter.rb);
Moodle's ``<Full Name>_<participant id>_assignsubmission_file/`` and its
grading worksheet; nbgrader's ``submitted/<id>/<assignment>/timestamp.txt``.
"""

import csv
import io
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.exercises import EXERCISES, IDS
from grader.teacher.intake import canvas, downloads, moodle
from grader.teacher.intake.canvas import canvas_file
from grader.teacher.late.lateness import Lateness
from grader.teacher.platforms import lms_export

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "solutions" / "ex0_weighted_sum.py").read_bytes()
STUB = (ROOT / "exercises" / "ex0_weighted_sum.py").read_bytes()
EX0 = "ex0_weighted_sum.py"
FULL = sum(e.points for e in EXERCISES)


def notes_text(notes) -> str:
    return "; ".join(notes)


def read(d: Path, tmp_path: Path):
    found = downloads.read(str(d), str(tmp_path / "work"))
    return found, {e.student_id: e for e in found.entries}


def graded_ex0(entry) -> bytes:
    return (Path(entry.folder) / EX0).read_bytes()


def zipped(members: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


# ------------------------------------------- Canvas: whose file it is


@pytest.mark.parametrize(
    "name, sid, late, filename",
    [
        # A sortable name ending in _<digits>: the user id is the field after it.
        ("zz_4242_101_5000_ex0_weighted_sum.py", "101", False, EX0),
        # ... and one starting with <digits>_.
        ("4242_zed_101_5000_ex0_weighted_sum.py", "101", False, EX0),
        # LATE stands right before the user id: the number before it is the name's.
        ("zz_4242_LATE_101_5000_ex0_weighted_sum.py", "101", True, EX0),
        ("zz_4242_101_5000_ex0_weighted_sum-1.ipynb", "101", False, "ex0_weighted_sum-1.ipynb"),
        # Read two ways, and not both users' fields Canvas's: no one's.
        ("mallory_101_6000_4242_99999_ex0_weighted_sum.py", None, None, None),
        ("smithjohn_101_5000_hw_2024_12_01.zip", None, None, None),
        ("zz_4242_101_5000_hw.zip", None, None, None),  # or "hw.zip" of 101? a "5000_hw.zip" of 4242?
        ("zz_4242_101_text.html", None, None, None),
    ],
)
def test_a_name_is_read_from_canvass_own_fields(name, sid, late, filename):
    got = canvas_file(name)
    assert (None if got is None else (got.student_id, got.late, got.filename)) == (sid and (sid, late, filename))


def test_a_name_ending_in_another_students_id_takes_nothing_from_them(tmp_path):
    """Mallory (user 101) calls herself "Victim_4242": her upload is hers,
    a zip of hers is no one's, and the victim's single zip is graded as it was."""
    d = tmp_path / "dl"
    d.mkdir()
    (d / "victim_4242_7000_hw.zip").write_bytes(zipped({f"hw/{EX0}": SOLUTION}))
    (d / f"victim_4242_101_7001_{EX0}").write_bytes(STUB)
    (d / "victim_4242_101_7002_hw.zip").write_bytes(zipped({EX0: STUB}))
    found, by_id = read(d, tmp_path)
    assert found.kind == canvas.KIND and sorted(by_id) == ["101", "4242"]
    assert graded_ex0(by_id["4242"]) == SOLUTION and graded_ex0(by_id["101"]) == STUB and by_id["101"].name == "victim_4242"
    for sid in ("101", "4242"):  # either may be its owner: each is told
        assert "reads more than one way" in notes_text(by_id[sid].notes) and "victim_4242_101_7002_hw.zip" in notes_text(by_id[sid].notes)


def test_a_file_that_reads_as_two_students_is_graded_for_neither(tmp_path):
    """Mallory uploads ``4242_99999_ex0_weighted_sum.py``, which Canvas
    writes after her own fields; an innocent date in a zip's name reads
    two ways as well. Neither file is given to anyone: each possible owner
    is told, and the teacher is told how to settle it."""
    d = tmp_path / "dl"
    d.mkdir()
    (d / f"victim_4242_7000_{EX0}").write_bytes(SOLUTION)
    (d / f"mallory_101_6000_4242_99999_{EX0}").write_bytes(STUB)
    (d / "smithjohn_102_6001_hw_2024_12_01.zip").write_bytes(zipped({EX0: SOLUTION}))
    found, by_id = read(d, tmp_path)
    # Not 4242's: their files begin "victim_4242_", and Canvas writes every file of theirs alike.
    assert graded_ex0(by_id["4242"]) == SOLUTION and not by_id["4242"].notes
    for sid in ("101", "6000", "102", "2024"):
        assert by_id[sid].folder is None and "reads more than one way" in notes_text(by_id[sid].notes), sid
    said = " ".join(found.warnings)
    assert "mallory_101_6000_4242_99999" in said and "101 / 6000" in said and "rename it" in said


# ------------------------------------- Canvas: the Points Possible row


HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (777)", "Current Points", "Final Points"]


def batch_out(tmp_path: Path, totals: dict) -> Path:
    """A batch's OUT as far as export reads it: grades.csv."""
    out = tmp_path / "out"
    out.mkdir()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student_id", *IDS, "total", "note"])
    for sid, total in totals.items():
        w.writerow([sid, total, *[0] * (len(IDS) - 1), total, ""])
    (out / "grades.csv").write_text(buf.getvalue(), encoding="utf-8")
    return out


def export(tmp_path: Path, rows, totals: dict, delimiter: str = ",", allow: bool = True):
    tmp_path.mkdir(exist_ok=True)
    gradebook = tmp_path / "gradebook.csv"
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    gradebook.write_text(buf.getvalue(), encoding="utf-8")
    to = tmp_path / "import.csv"
    args = SimpleNamespace(out=str(batch_out(tmp_path, totals)), platform="canvas", gradebook=str(gradebook), column="Attention (777)", to=str(to), allow_unmatched=allow, worksheet=None)
    code = lms_export.run(args)
    text = to.read_text(encoding="utf-8") if to.exists() else ""
    return code, list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


def test_a_student_named_points_possible_sets_no_maximum(tmp_path, capsys):
    rows = [
        HEADER,
        ["    Points Possible", "", "", "", "", "10.00", "(read only)", "(read only)"],
        ["Adams, Ann", "101", "S101", "aadams", "A", "", "0", "0"],
        ["Points Possible", "108", "S108", "pp", "A", "100.00", "0", "0"],  # sorted among the students
        ["Young, Yan", "109", "S109", "yyoung", "A", "", "0", "0"],
    ]
    code, got = export(tmp_path, rows, {"101": FULL, "108": FULL, "109": FULL / 2}, allow=False)
    assert code == 1 and got == []  # the row is listed, nothing written without --allow-unmatched
    assert "Points Possible (108)" in capsys.readouterr().err
    code, got = export(tmp_path / "again", rows, {"101": FULL, "108": FULL, "109": FULL / 2})
    assert code == 0
    by_id = {r[1]: r for r in got}
    assert (by_id["101"][5], by_id["109"][5]) == ("10", "5")  # out of the column's 10, not the student's 100
    assert "108" not in by_id  # left out: Canvas's importer would read it as the points row
    assert got[1] == rows[1] and len(got) == len(rows) - 1


def test_a_points_possible_row_where_canvas_writes_none_is_a_student(tmp_path, capsys):
    """LastName/FirstName, ``;``: a student's row right after the real one,
    whose first cell copies it, and a file without the real row."""
    rows = [
        ["LastName", "FirstName", "ID", "SIS Login ID", "Section", "Attention (777)"],
        ["", "", "", "", "", "Manual Posting"],
        ["    Points Possible", "", "", "", "", "20,00"],
        ["    Points Possible", "Eve", "107", "eve", "A", "1000,00"],
        ["Adams", "Ann", "101", "aadams", "A", ""],
    ]
    code, got = export(tmp_path, rows, {"101": FULL, "107": FULL}, delimiter=";")
    assert code == 0 and [r[2] for r in got] == ["ID", "", "", "101"]
    assert got[3][5] == "20"
    without = [rows[0], rows[3], rows[4]]
    code, got = export(tmp_path / "none", without, {"101": FULL, "107": FULL}, delimiter=";")
    assert code == 0 and got[-1][5] == f"{FULL:g}"  # no points row: the unit's own points
    assert "Eve" in capsys.readouterr().err


# ------------------------------- submission times a student cannot set


POLICY = 'due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = 10\ntimes = "times.csv"\n'
EARLY = "2026-12-01 00:00:00.000000 UTC"  # what a student's own timestamp.txt claims


def lateness(tmp_path: Path, d: Path, times: str = "", worksheet: list | None = None) -> dict:
    (tmp_path / "course.toml").write_text(POLICY, encoding="utf-8")
    (tmp_path / "times.csv").write_text("student_id,submitted_at\n" + times, encoding="utf-8")
    sheet = None
    if worksheet:
        sheet = tmp_path / "worksheet.csv"
        with open(sheet, "w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows(worksheet)
    found = downloads.read(str(d), str(tmp_path / "work"))
    return Lateness.load(str(tmp_path / "course.toml"), sheet and str(sheet)).of(found.entries)


def test_moodle_a_timestamp_in_the_students_folder_is_not_their_time(tmp_path):
    d = tmp_path / "dl"
    for prefix, where in (("Li Hua_2001", ""), ("Bo Chen_2002", "attention/")):
        folder = d / f"{prefix}_assignsubmission_file" / where
        folder.mkdir(parents=True)
        (folder / EX0).write_bytes(SOLUTION)
        (folder / "timestamp.txt").write_text(EARLY)
    sheet = [
        ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Last modified (submission)", "Feedback comments"],
        ["Participant 2001", "Li Hua", "li@example.edu", "Submitted for grading", "", "100.00", "Saturday, 12 December 2026, 10:00 AM", ""],
        ["Participant 2002", "Bo Chen", "bo@example.edu", "Submitted for grading", "", "100.00", "Friday, 11 December 2026, 9:00 AM", ""],
    ]
    late = lateness(tmp_path, d, worksheet=sheet)
    assert (late["2001"].late_days, late["2002"].late_days) == (2, 1)
    assert late["2001"].source.startswith("worksheet") and late["2002"].source.startswith("worksheet")


def test_folders_a_timestamp_the_student_wrote_is_not_nbgraders(tmp_path):
    """A class of folders the students made: Ann's attention/timestamp.txt
    is hers (Ben's folder shows the class is not nbgrader's), and the
    teacher's times file gives her time."""
    d = tmp_path / "class"
    (d / "ann" / "attention").mkdir(parents=True)
    (d / "ann" / "attention" / EX0).write_bytes(SOLUTION)
    (d / "ann" / "attention" / "timestamp.txt").write_text(EARLY)
    (d / "ben").mkdir()
    (d / "ben" / EX0).write_bytes(SOLUTION)
    late = lateness(tmp_path, d, times="ann,2026-12-13T10:00:00+08:00\n")
    assert (late["ann"].late_days, late["ann"].source) == (3, "times: times.csv")


def test_nbgrader_only_the_exchanges_timestamp_counts(tmp_path):
    """nbgrader's layout: the exchange writes ``<id>/attention/timestamp.txt``
    over any the student had; one the student put further down, beside
    their files, is theirs."""
    d = tmp_path / "submitted"
    for sid, claimed in (("ann", "2026-12-12 02:00:00.000000 UTC"), ("ben", "2026-12-10 15:00:00.000000 UTC")):
        (d / sid / "attention" / "work").mkdir(parents=True)
        (d / sid / "attention" / "timestamp.txt").write_text(claimed)
        (d / sid / "attention" / "work" / EX0).write_bytes(SOLUTION)
        (d / sid / "attention" / "work" / "timestamp.txt").write_text(EARLY)
    late = lateness(tmp_path, d)
    assert (late["ann"].late_days, late["ann"].source) == (2, "timestamp.txt")
    assert (late["ben"].late_days, late["ben"].source) == (0, "timestamp.txt")


# --------------------------- a class zip's shape costs only its students


def class_zip(path: Path, members: list) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name) if isinstance(name, str) else name, data)
    return path


def test_moodle_a_file_and_a_folder_of_one_name(tmp_path):
    li, bo = "Li Hua_2001_assignsubmission_file", "Bo Chen_2002_assignsubmission_file"
    z = class_zip(tmp_path / "class.zip", [(f"{li}/hw", b"a file"), (f"{li}/hw/{EX0}", SOLUTION), (f"{bo}/{EX0}", SOLUTION)])
    found, by_id = read(z, tmp_path)
    assert found.kind == moodle.KIND and graded_ex0(by_id["2002"]) == SOLUTION and not by_id["2002"].notes
    assert "not unpacked from the class zip" in notes_text(by_id["2001"].notes) and "hw/ex0_weighted_sum.py" in notes_text(by_id["2001"].notes)


@pytest.mark.parametrize(
    "members, hit",
    [
        # Canvas: a backslash makes a folder of another file's name.
        ([(f"ann_1_2_{EX0}", SOLUTION), (f"ann_1_2_{EX0}\\x.py", b"x"), (f"bob_3_4_{EX0}", SOLUTION)], "1"),
        # A zip of the download's folder: the folder comes first, then a file of its name.
        ([(f"subs/ann_1_2_{EX0}/x.py", b"x"), (f"subs/ann_1_2_{EX0}", SOLUTION), (f"subs/bob_3_4_{EX0}", SOLUTION), (f"subs/cy_5_6_{EX0}", SOLUTION)], "1"),
        # Folders: a file where a folder goes, a trailing slash, an empty name, a nested zip.
        ([("ann/attention", b"x"), (f"ann/attention/{EX0}", SOLUTION), ("", b""), ("ann/", b""), (f"bob/{EX0}", SOLUTION), ("bob/inner.zip", zipped({EX0: STUB}))], "ann"),
    ],
)
def test_a_class_zip_of_clashing_paths_costs_only_that_student(tmp_path, members, hit):
    found, by_id = read(class_zip(tmp_path / "class.zip", members), tmp_path)
    assert "not unpacked from the class zip" in notes_text(by_id[hit].notes)
    others = [e for sid, e in by_id.items() if sid != hit]
    assert others and all(graded_ex0(e) == SOLUTION and "class zip" not in notes_text(e.notes) for e in others)
