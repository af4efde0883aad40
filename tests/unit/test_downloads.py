"""Reading a platform's download (grader/teacher/intake/: downloads.py tells
the kinds apart, canvas.py, moodle.py and class_zip.py read them) without
grading it: names taken apart as Canvas and Moodle write them, the layout
recognised only when it is the platform's, and a class zip unpacked as
safely as a student's (no path outside, no link, no bomb)."""

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from grader.teacher.intake import canvas, class_zip, downloads, moodle, submissions
from grader.teacher.intake.canvas import canvas_file
from grader.teacher.intake.moodle import moodle_name
from grader.teacher.intake.submissions import notes_text

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "solutions" / "ex0_weighted_sum.py").read_bytes()


@pytest.mark.parametrize(
    "name, want",
    [
        ("smithjohn_12345_678901_ex0_weighted_sum.py", ("smithjohn", "12345", False, 678901, "ex0_weighted_sum.py")),
        ("smithjohn_LATE_12345_678901_ex0_weighted_sum.py", ("smithjohn", "12345", True, 678901, "ex0_weighted_sum.py")),
        ("müllerjürgen_7_8_ex0_weighted_sum-1.py", ("müllerjürgen", "7", False, 8, "ex0_weighted_sum-1.py")),
        ("o_brien_sean_7_8_my file.py", ("o_brien_sean", "7", False, 8, "my file.py")),  # underscores stay in names
        ("anon_x8Yz2_901_ex1_averaging.py", ("", "anon_x8Yz2", False, 901, "ex1_averaging.py")),
        ("LATE_anon_x8Yz2_901_ex1_averaging.py", ("", "anon_x8Yz2", True, 901, "ex1_averaging.py")),
        ("zhangwei_103_text.html", ("zhangwei", "103", False, None, "text.html")),
        ("zhangwei_103_link.html", ("zhangwei", "103", False, None, "link.html")),
        ("ex0_weighted_sum.py", None),
        ("smithjohn_12345_notes.txt", None),
        ("smithjohn_١٢٣_٤٥٦_x.py", None),  # digits of another script are no Canvas id
    ],
)
def test_canvas_names(name, want):
    got = canvas_file(name)
    assert (None if got is None else (got.name, got.student_id, got.late, got.attachment, got.filename)) == want


@pytest.mark.parametrize(
    "name, want",
    [
        ("Li Hua_2001_assignsubmission_file", ("Li Hua", "2001", "file", "")),
        ("Li Hua_2001_assignsubmission_file_", ("Li Hua", "2001", "file", "")),  # older Moodle
        ("Li Hua_2001_assignsubmission_file_ex0_weighted_sum.py", ("Li Hua", "2001", "file", "ex0_weighted_sum.py")),
        ("Ana María_2002_assignsubmission_onlinetext", ("Ana María", "2002", "onlinetext", "")),
        ("Participant_1234567_assignsubmission_file", ("Participant", "1234567", "file", "")),  # blind marking
        ("Li Hua_assignsubmission_file", None),
        ("2001", None),
    ],
)
def test_moodle_names(name, want):
    assert moodle_name(name) == want


def test_one_odd_file_does_not_make_a_class_a_canvas_download(tmp_path):
    d = tmp_path / "class"
    for sid in ("anna", "ben", "chen"):
        (d / sid).mkdir(parents=True)
        (d / sid / "ex0_weighted_sum.py").write_bytes(SOLUTION)
    (d / "smithjohn_1_2_ex0_weighted_sum.py").write_bytes(SOLUTION)
    found = downloads.read(str(d), str(tmp_path / "work"))
    assert found.kind == "folders"
    assert [e.student_id for e in found.entries] == ["anna", "ben", "chen"]
    assert any("smithjohn_1_2" in w for w in found.warnings)


def test_an_odd_file_in_a_canvas_download_is_named_and_ignored(tmp_path):
    d = tmp_path / "dl"
    d.mkdir()
    (d / "smithjohn_1_2_ex0_weighted_sum.py").write_bytes(SOLUTION)
    (d / "smithjohn_1_3_ex1_averaging.py").write_bytes(SOLUTION)
    (d / "README.txt").write_text("from the teacher")
    found = downloads.read(str(d), str(tmp_path / "work"))
    assert found.kind == canvas.KIND and [e.student_id for e in found.entries] == ["1"]
    assert any("README.txt" in w for w in found.warnings)


def test_hostile_names_in_a_download_become_text(tmp_path):
    """Names are the students': control characters and bytes that are not
    UTF-8 reach no message as they are."""
    d = tmp_path / "dl"
    d.mkdir()
    (d / "evil\x1b[31mname_5_6_ex0_weighted_sum.py").write_bytes(SOLUTION)
    with open(os.path.join(os.fsencode(d), b"bad\xffname_7_8_ex0_weighted_sum.py"), "wb") as f:
        f.write(SOLUTION)
    found = downloads.read(str(d), str(tmp_path / "work"))
    by_id = {e.student_id: e for e in found.entries}
    assert "\x1b" not in by_id["5"].name and "\\x1b" in by_id["5"].name
    assert by_id["7"].name == "bad\\xffname"
    assert by_id["5"].folder and by_id["7"].folder


def _zip(path: Path, members: dict, links: dict = {}) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
        for name, target in links.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)


def test_a_class_zip_unpacks_nothing_outside_and_no_link(tmp_path):
    z = tmp_path / "class.zip"
    _zip(
        z,
        {
            "smithjohn_1_2_ex0_weighted_sum.py": SOLUTION,
            "../escaped_3_4_ex0_weighted_sum.py": SOLUTION,
            "/abs_5_6_ex0_weighted_sum.py": SOLUTION,
        },
        links={"linked_7_8_ex0_weighted_sum.py": "/etc/passwd"},
    )
    work = tmp_path / "work"
    found = downloads.read(str(z), str(work))
    assert found.kind == canvas.KIND
    assert [e.student_id for e in found.entries] == ["1"]
    assert not (tmp_path / "escaped_3_4_ex0_weighted_sum.py").exists()
    assert not any(p.is_symlink() for p in work.rglob("*"))
    said = " ".join(found.warnings)
    assert "escaped" in said and "linked" in said


def test_a_class_zip_that_is_no_zip_or_too_large(tmp_path, monkeypatch):
    bad = tmp_path / "class.zip"
    bad.write_bytes(b"not a zip")
    found = downloads.read(str(bad), str(tmp_path / "w1"))
    assert found.entries == [] and "valid zip" in found.warnings[0]
    _zip(bad, {f"s_{i}_{i}_ex0_weighted_sum.py": b"x" for i in range(5)})
    monkeypatch.setattr(class_zip, "MAX_CLASS_ZIP_MEMBERS", 3)
    found = downloads.read(str(bad), str(tmp_path / "w2"))
    assert found.entries == [] and "too large" in found.warnings[0]


def test_a_member_that_unpacks_larger_than_it_says_is_cut(tmp_path, monkeypatch):
    monkeypatch.setattr(submissions, "MAX_ZIP_BYTES", 1000)
    z = tmp_path / "class.zip"
    _zip(z, {"big_1_2_ex0_weighted_sum.py": b"#" * 5000, "small_3_4_ex0_weighted_sum.py": SOLUTION[:900]})
    found = downloads.read(str(z), str(tmp_path / "work"))
    big, small = found.entries  # the student whose file was cut is listed, with why
    assert (big.student_id, big.folder, small.student_id) == ("1", None, "3") and small.folder
    assert "too large unpacked" in notes_text(big.notes) and "big_1_2" in notes_text(big.notes)
    assert "big_1_2" in " ".join(found.warnings)


def test_moodle_zip_of_a_student_and_online_text(tmp_path):
    d = tmp_path / "dl"
    (d / "Li Hua_2001_assignsubmission_file").mkdir(parents=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("hw/ex0_weighted_sum.py", SOLUTION)
    (d / "Li Hua_2001_assignsubmission_file" / "hw.zip").write_bytes(buf.getvalue())
    (d / "Bo Chen_2002_assignsubmission_onlinetext").mkdir()
    (d / "Bo Chen_2002_assignsubmission_onlinetext" / "onlinetext.html").write_text("<p>hi</p>")
    found = downloads.read(str(d), str(tmp_path / "work"))
    assert found.kind == moodle.KIND
    li, bo = found.entries
    assert (li.student_id, li.name) == ("2001", "Li Hua") and li.folder and (Path(li.folder) / "ex0_weighted_sum.py").read_bytes() == SOLUTION
    assert bo.folder is None and any("online text" in note for note in bo.notes)


def test_of_two_files_of_one_name_the_later_upload_is_graded(tmp_path):
    """Canvas's ``-N`` marks a name given again (the later upload, whatever
    the attachment ids); of the same name twice, the larger attachment id."""
    d = tmp_path / "dl"
    d.mkdir()
    wrong = b"def weighted_sum(scores, values):\n    return values[0]\n"
    (d / "ann_1_900_ex0_weighted_sum.py").write_bytes(wrong)
    (d / "ann_1_100_ex0_weighted_sum-1.py").write_bytes(SOLUTION)
    (d / "bob_2_300_ex0_weighted_sum.py").write_bytes(wrong)
    (d / "bob_2_400_ex0_weighted_sum.py").write_bytes(SOLUTION)
    found = downloads.read(str(d), str(tmp_path / "work"))
    for e in found.entries:
        assert (Path(e.folder) / "ex0_weighted_sum.py").read_bytes() == SOLUTION, e.student_id
        assert any("uploaded more than once" in note for note in e.notes)
    assert "ann_1_900" in notes_text(found.entries[0].notes) and "bob_2_300" in notes_text(found.entries[1].notes)


def test_one_students_unreadable_files_cost_only_them(tmp_path, monkeypatch):
    d = tmp_path / "dl"
    d.mkdir()
    (d / "ann_1_2_ex0_weighted_sum.py").write_bytes(SOLUTION)
    (d / "bob_3_4_ex0_weighted_sum.py").write_bytes(SOLUTION)
    real = submissions.from_folder

    def fails_for_bob(root, sid, *args):
        if sid == "3":
            raise OSError("disk gone")
        return real(root, sid, *args)

    monkeypatch.setattr(submissions, "from_folder", fails_for_bob)
    ann, bob = downloads.read(str(d), str(tmp_path / "work")).entries
    assert ann.folder and bob.folder is None and "could not be read" in notes_text(bob.notes) and bob.name == "bob"


def test_matching_an_export_tries_ids_in_order_then_names_and_never_guesses():
    """lms_export.match: the platform's id, then the other ids it lists,
    then the name; two rows of one name are not guessed between."""
    from types import SimpleNamespace as S

    from grader.teacher.platforms.lms_export import match

    students = [S(id="101", name=""), S(id="jsmith", name=""), S(id="7", name="müllerjürgen"), S(id="8", name="Wang Fang"), S(id="9", name="")]
    rows = {
        1: {"name": "Smith, John", "ID": "555", "SIS Login ID": "jsmith"},
        2: {"name": "Doe, Jane", "ID": "101", "SIS Login ID": "x"},
        3: {"name": "Müller, Jürgen", "ID": "556", "SIS Login ID": "y"},
        4: {"name": "Wang Fang", "ID": "557", "SIS Login ID": "z1"},
        5: {"name": "Wang Fang", "ID": "558", "SIS Login ID": "z2"},
    }
    m = match(students, rows, ["ID", "SIS Login ID"])
    assert m.rows == {"101": 2, "jsmith": 1, "7": 3}
    assert m.ours_unmatched == ["8 (Wang Fang)", "9"]
    assert m.theirs_without_result == ["Wang Fang (557)", "Wang Fang (558)"]


def test_an_anonymous_download_is_read_as_one(tmp_path):
    """Under anonymous grading every file is ``anon_<id>``, and an id of
    digits alone also reads as a student named "anon": the download as a
    whole says which."""
    d = tmp_path / "dl"
    d.mkdir()
    (d / "anon_12345_901_ex0_weighted_sum.py").write_bytes(SOLUTION)
    (d / "LATE_anon_x8Yz2_902_ex0_weighted_sum.py").write_bytes(SOLUTION)
    found = downloads.read(str(d), str(tmp_path / "work"))
    assert [(e.student_id, e.marked_late) for e in found.entries] == [("anon_12345", False), ("anon_x8Yz2", True)]
    assert all(e.folder and not e.notes for e in found.entries)
