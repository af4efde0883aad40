"""Finding submissions in a batch folder (``grader/teacher/intake/submissions.py``), with bad
input of every kind: nothing crashes, nothing is written outside the work
folder, and each oddity becomes a note.

``make_nasty_dir`` is shared with ``test_batch.py``, which grades the same
folder with the real command line.
"""

import os
import shutil
import stat
import unicodedata
import warnings
import zipfile

import pytest
from conftest import EXERCISES, SOLUTIONS

from grader.exercises import IDS
from grader.teacher.intake import submissions

BAD_NAME = os.fsdecode(b"bad\xffname")  # a folder name that is not UTF-8
BAD_ID = "bad\\xffname"  # ... and the id it gets
FORMULA_ID = '=HYPERLINK("evil.example","100")'  # a spreadsheet would evaluate it
FORMULA_CELL = "'" + FORMULA_ID  # ... as grades.csv writes it
CAFE_NFC, CAFE_NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
# Ids refused for differing from an earlier one only in case or Unicode form
# (they would share an output folder on macOS), and the earlier one.
SHARING = {"alice": "Alice", CAFE_NFC: CAFE_NFD}


def _solutions() -> dict:
    out = {}
    for ex in IDS:
        with open(os.path.join(SOLUTIONS, ex + ".py"), encoding="utf-8") as f:
            out[ex + ".py"] = f.read()
    return out


def _folder(path, files: dict) -> None:
    os.makedirs(path, exist_ok=True)
    for name, text in files.items():
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(os.path.join(path, name), mode, **({} if isinstance(text, bytes) else {"encoding": "utf-8"})) as f:
            f.write(text)


def _zip(path, members: list) -> None:
    """members: (name, data) or (ZipInfo, data); a name may come twice."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)
        for name, data in members:
            z.writestr(name, data)


def _lying_zip(path) -> None:
    """ex0_weighted_sum.py really unpacks to 2 MB of zeros, but the headers
    say 100 bytes."""
    _zip(path, [("ex0_weighted_sum.py", b"#" + b"0" * (2 * 1024**2))])
    with open(path, "rb") as f:
        data = bytearray(f.read())
    real = (2 * 1024**2 + 1).to_bytes(4, "little")
    fake = (100).to_bytes(4, "little")
    count = data.count(real)
    assert count == 2, count  # local header and central directory
    data = data.replace(real, fake)
    with open(path, "wb") as f:
        f.write(data)


def make_nasty_dir(root) -> dict:
    """A batch folder with every kind of bad input; returns what each
    student id should come to: "graded" (full marks unless noted), or None
    (not graded), with the words its note must contain."""
    root = str(root)
    os.makedirs(root)
    sol = _solutions()
    expect = {}

    os.makedirs(os.path.join(root, "empty"))
    expect["empty"] = (None, ["no exercise files"], 0)

    _folder(os.path.join(root, "only_junk"), {"README.txt": "hello", "photo.png": b"\x89PNG"})
    expect["only_junk"] = (None, ["no exercise files", "README.txt"], 0)

    # Zip slip: members outside the folder are refused; the one good file is graded.
    _zip(
        os.path.join(root, "slip.zip"),
        [
            ("../escaped.py", "print('out')"),
            ("/abs/ex0_weighted_sum.py", sol["ex0_weighted_sum.py"]),
            ("a/../../ex1_averaging.py", sol["ex1_averaging.py"]),
            ("..\\ex3_scaling.py", sol["ex3_scaling.py"]),
            ("ex2_scores.py", sol["ex2_scores.py"]),
        ],
    )
    expect["slip"] = ("graded", ["refused unsafe paths"], {"ex2_scores"})

    # A symlinked exercise file in a folder: not followed, not graded.
    _folder(os.path.join(root, "linky"), {k: v for k, v in sol.items() if k != "ex0_weighted_sum.py"})
    os.symlink(os.path.join(SOLUTIONS, "ex0_weighted_sum.py"), os.path.join(root, "linky", "ex0_weighted_sum.py"))
    expect["linky"] = ("graded", ["symbolic link"], set(IDS) - {"ex0_weighted_sum"})

    # A student folder that is a symlink (to another student's work).
    _folder(os.path.join(root, "..", "elsewhere"), sol)
    os.symlink(os.path.join(root, "..", "elsewhere"), os.path.join(root, "linkdir"))
    expect["linkdir"] = (None, ["symbolic link"], 0)

    # A zip with a symlink member named like an exercise.
    info = zipfile.ZipInfo("ex0_weighted_sum.py")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    _zip(os.path.join(root, "linkzip.zip"), [(info, "/etc/passwd")] + [(k, v) for k, v in sol.items() if k != "ex0_weighted_sum.py"])
    expect["linkzip"] = ("graded", ["symbolic links not unpacked"], set(IDS) - {"ex0_weighted_sum"})

    # A file over 1 MB.
    big = dict(sol)
    big["ex0_weighted_sum.py"] = sol["ex0_weighted_sum.py"] + "\n#" + "x" * (1024**2) + "\n"
    _folder(os.path.join(root, "big"), big)
    expect["big"] = ("graded", ["over 1 MB"], set(IDS) - {"ex0_weighted_sum"})

    # Zip bombs: an honest 2 MB member, a member whose header lies, too many
    # members, too much in all.
    _zip(os.path.join(root, "bomb_member.zip"), [("ex0_weighted_sum.py", b"#" + b"0" * (2 * 1024**2))] + [(k, v) for k, v in sol.items() if k != "ex0_weighted_sum.py"])
    expect["bomb_member"] = ("graded", ["over 1 MB"], set(IDS) - {"ex0_weighted_sum"})
    _lying_zip(os.path.join(root, "bomb_lying.zip"))
    expect["bomb_lying"] = ("graded", ["cannot unpack"], set())
    _zip(os.path.join(root, "bomb_count.zip"), [(f"f{i}.txt", b"") for i in range(submissions.MAX_ZIP_MEMBERS + 1)])
    expect["bomb_count"] = (None, ["too many files"], 0)
    zeros = b"\0" * (8 * 1024**2)
    _zip(os.path.join(root, "bomb_total.zip"), [(f"blob{i}.bin", zeros) for i in range(submissions.MAX_ZIP_UNPACKED // len(zeros) + 1)])
    expect["bomb_total"] = (None, ["unpacks to over"], 0)

    with open(os.path.join(root, "corrupt.zip"), "wb") as f:
        f.write(b"PK\x03\x04 this is not really a zip")
    expect["corrupt"] = (None, ["not a valid zip"], 0)

    # Two members of the same name: which one would be graded is a guess.
    wrong = "def weighted_sum(scores, values):\n    return values.mean(-2)\n"
    _zip(os.path.join(root, "dupe.zip"), list(sol.items()) + [("ex0_weighted_sum.py", wrong)])
    expect["dupe"] = (None, ["files of the same name in the zip", "ex0_weighted_sum.py"], 0)

    # The same id twice: neither is graded.
    _folder(os.path.join(root, "twice"), sol)
    _zip(os.path.join(root, "twice.zip"), list(sol.items()))
    expect["twice"] = (None, ["given twice"], 0)

    # Ids that would share a folder on macOS: the first (sorted) is graded.
    for sid in ("Alice", "alice", CAFE_NFD, CAFE_NFC):
        _folder(os.path.join(root, sid), sol)
    expect["Alice"] = expect[CAFE_NFD] = ("graded", [], set(IDS))
    expect["alice"] = (None, ["only in case or Unicode form", "Alice"], 0)
    expect[CAFE_NFC] = (None, ["only in case or Unicode form", CAFE_NFD], 0)

    # An id a spreadsheet would take for a formula.
    _folder(os.path.join(root, FORMULA_ID), sol)
    expect[FORMULA_ID] = ("graded", [], set(IDS))

    # Ids with a space and Chinese characters; a folder name that is not UTF-8;
    # an id that is also the name of a file the batch writes.
    _folder(os.path.join(root, "王 小明"), sol)
    expect["王 小明"] = ("graded", [], set(IDS))
    _folder(os.path.join(root, BAD_NAME), sol)
    expect[BAD_ID] = ("graded", ["shown escaped"], set(IDS))
    _folder(os.path.join(root, "grades.csv"), sol)
    expect["grades.csv"] = ("graded", [], set(IDS))

    # A nested exercises/ folder, and junk beside the exercise files.
    _folder(os.path.join(root, "nested", "exercises"), sol)
    expect["nested"] = ("graded", [], set(IDS))
    _folder(os.path.join(root, "junky"), {**sol, "notes.txt": "x", "model.pt": b"\0\1", os.fsdecode(b"\xfe\xfd.txt"): "y"})
    expect["junky"] = ("graded", ["ignored", "notes.txt", "\\xfe\\xfd.txt"], set(IDS))

    # Not a submission at all.
    with open(os.path.join(root, "readme.txt"), "w") as f:
        f.write("not a student")
    return expect


def _tree(path) -> dict:
    """Every name under ``path`` (not following links) with its size and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[os.path.relpath(p, path)] = (stat.S_IFMT(st.st_mode), st.st_size if not stat.S_ISDIR(st.st_mode) else 0, st.st_mtime_ns)
    return out


@pytest.fixture
def nasty(tmp_path):
    d = tmp_path / "in" / "subs"
    expect = make_nasty_dir(d)
    return d, expect


def test_nasty_folder(nasty, tmp_path):
    d, expect = nasty
    work = tmp_path / "work"
    work.mkdir()
    before = _tree(tmp_path / "in")
    entries, warnings = submissions.discover(str(d), str(work))
    assert _tree(tmp_path / "in") == before  # the input is untouched
    by_id = {e.student_id: e for e in entries}
    assert sorted(by_id) == sorted(expect)
    assert [e.student_id for e in entries] == sorted(by_id)
    assert any("readme.txt" in w for w in warnings)
    for sid, (status, words, _) in expect.items():
        e = by_id[sid]
        if status is None:
            assert e.folder is None, sid
            assert e.digest is None, sid
        else:
            assert e.folder is not None and os.path.isdir(e.folder), sid
            assert e.digest and len(e.digest) == 64, sid
        for w in words:
            assert any(w in note for note in e.notes), (sid, e.notes)
    # Unpacked: only exercise files, only under the work folder, never a link.
    for dirpath, dirnames, filenames in os.walk(work):
        for name in filenames:
            p = os.path.join(dirpath, name)
            assert name in submissions.FILENAMES, p
            assert not os.path.islink(p)
            assert os.path.getsize(p) <= submissions.MAX_FILE_BYTES
    assert not (tmp_path / "in" / "escaped.py").exists() and not (tmp_path / "escaped.py").exists()
    assert not os.path.exists("/abs/ex0_weighted_sum.py")
    # The folder a submission is graded from is inside the input (folders) or the work folder (zips).
    for e in entries:
        if e.folder:
            real = os.path.realpath(e.folder)
            assert real.startswith(os.path.realpath(d) + os.sep) or real.startswith(os.path.realpath(work) + os.sep)
    assert by_id["nested"].folder.endswith(os.path.join("nested", "exercises"))
    assert by_id["nested"].display == "nested/exercises"
    assert by_id["slip"].display == "slip.zip"


def test_layouts(tmp_path):
    """Folder, nested exercises/, nbgrader's DIR/<id>/<assignment>/ and a zip
    with a top folder all find the same files, and hash them the same."""
    sol = _solutions()
    d = tmp_path / "subs"
    _folder(d / "a", sol)
    _folder(d / "b" / "exercises", sol)
    _folder(d / "c" / "attention", sol)
    _folder(d / "c" / "older_homework", {"ex0_weighted_sum.py": "x = 1\n"})
    _zip(d / "e.zip", [("e/exercises/" + k, v) for k, v in sol.items()] + [("__MACOSX/._ex0_weighted_sum.py", b"\0")])
    entries, warnings = submissions.discover(str(d), str(tmp_path / "work"), assignment="attention")
    assert not warnings
    by_id = {e.student_id: e for e in entries}
    assert sorted(by_id) == ["a", "b", "c", "e"]
    assert len({e.digest for e in entries}) == 1
    assert by_id["c"].folder.endswith(os.path.join("c", "attention"))
    assert any("older_homework" in note for note in by_id["c"].notes)
    assert by_id["e"].notes == []
    sid, folder, notes = by_id["a"]  # an entry unpacks as (student_id, folder, notes)
    assert (sid, notes) == ("a", [])


def test_a_note_holding_the_separator_stays_one_note(tmp_path):
    """grades.csv joins a student's notes with "; " (``notes_text``); a note
    that holds "; " itself (a file the student named so) is still one note."""
    d = tmp_path / "subs"
    _folder(d / "s", {"draft; v2.txt": "x"})
    (e,), _ = submissions.discover(str(d), str(tmp_path / "work"))
    assert e.folder is None
    assert e.notes == ["没有练习文件 / no exercise files", "忽略 / ignored: draft; v2.txt"]
    assert submissions.notes_text(e.notes) == "没有练习文件 / no exercise files; 忽略 / ignored: draft; v2.txt"


def test_digest_follows_content(tmp_path):
    sol = _solutions()
    d = tmp_path / "subs"
    _folder(d / "a", sol)
    first = submissions.discover(str(d), str(tmp_path))[0][0].digest
    assert submissions.discover(str(d), str(tmp_path))[0][0].digest == first
    with open(d / "a" / "ex3_scaling.py", "a", encoding="utf-8") as f:
        f.write("\n# changed\n")
    assert submissions.discover(str(d), str(tmp_path))[0][0].digest != first
    os.remove(d / "a" / "ex3_scaling.py")
    assert submissions.discover(str(d), str(tmp_path))[0][0].digest != first


def test_stubs_folder_is_a_submission(tmp_path):
    shutil.copytree(EXERCISES, tmp_path / "subs" / "s")
    (e,), _ = submissions.discover(str(tmp_path / "subs"), str(tmp_path))
    assert e.folder and e.notes == []


@pytest.mark.parametrize(
    "sid, safe",
    [
        ("alice", "alice"),
        ("王 小明", "王 小明"),
        (FORMULA_ID, FORMULA_ID),
        ("grades.csv", None),
        ("Grades.CSV", None),  # grades.csv itself on macOS and Windows
        ("GRADEBOOK.db", None),
        ("report.html", None),  # the class report's files
        ("Similar.json", None),
        (".hidden", None),
        (BAD_ID, None),
        ("a\nb", None),
    ],
)
def test_safe_name(sid, safe):
    got = submissions.safe_name(sid)
    if safe is not None:
        assert got == safe
    else:
        assert got != sid and got.startswith("_") and "/" not in got
    assert got not in submissions.RESERVED and not got.startswith(".")


@pytest.mark.parametrize(
    "names, same",
    [
        (["ex0_weighted_sum.py", "ex0_weighted_sum.py"], "ex0_weighted_sum.py"),
        (["ex0_weighted_sum.py", "./ex0_weighted_sum.py"], "ex0_weighted_sum.py"),
        (["sub/ex0_weighted_sum.py", "sub\\ex0_weighted_sum.py"], "sub/ex0_weighted_sum.py"),
        (["sub/ex0_weighted_sum.py", "sub//./ex0_weighted_sum.py"], "sub/ex0_weighted_sum.py"),
        (["notes.txt", "./notes.txt"], "notes.txt"),  # not an exercise file, still a guess which is which
    ],
)
def test_zip_with_two_members_of_one_name(tmp_path, names, same):
    """Two members that unpack to one path (as normalised for unpacking):
    the zip is refused whole, the note names the path, nothing is unpacked."""
    sol = _solutions()
    d, work = tmp_path / "subs", tmp_path / "work"
    d.mkdir()
    folder = os.path.dirname(names[0])
    rest = [(os.path.join(folder, k), v) for k, v in sol.items() if k != "ex0_weighted_sum.py"]
    _zip(d / "s.zip", rest + [(n, sol["ex0_weighted_sum.py"] if "ex0" in n else "x") for n in names])
    (e,), warned = submissions.discover(str(d), str(work))
    assert not warned
    assert (e.student_id, e.folder, e.digest) == ("s", None, None)
    assert e.notes == [f"zip 内有同名文件（{same}），未评分 / files of the same name in the zip ({same}): not graded"]
    assert list(os.walk(work)) == [(str(work), [], [])]


def test_zip_members_in_different_folders_are_no_duplicates(tmp_path):
    sol = _solutions()
    d = tmp_path / "subs"
    d.mkdir()
    folder_twice = zipfile.ZipInfo("s/")  # a folder's own entry, twice: harmless
    _zip(d / "s.zip", [(folder_twice, ""), (folder_twice, "")] + [("s/" + k, v) for k, v in sol.items()] + [("old/ex0_weighted_sum.py", "x = 1\n")])
    (e,), _ = submissions.discover(str(d), str(tmp_path / "work"))
    said = submissions.notes_text(e.notes)
    assert e.folder and "same name" not in said and "old/" in said


def test_ids_that_differ_only_in_case_or_unicode_form(tmp_path):
    """Ids a case-insensitive, normalisation-insensitive file system (macOS,
    Windows) takes for one name: in sorted order, the first is graded and the
    others refused, naming it, without being looked into."""
    sol = _solutions()
    d = tmp_path / "subs"
    d.mkdir()
    _zip(d / "ALICE.zip", list(sol.items()))
    for sid in ("Alice", "alice", "STRASSE", "straße", CAFE_NFC, CAFE_NFD, "Zoë"):
        _folder(d / sid, sol)
    os.makedirs(d / "zoe\u0308" / "empty")  # Zoë, decomposed and lower-case
    entries, warned = submissions.discover(str(d), str(tmp_path / "work"))
    assert not warned
    by_id = {e.student_id: e for e in entries}
    assert sorted(by_id) == sorted(["ALICE", "Alice", "alice", "STRASSE", "straße", CAFE_NFC, CAFE_NFD, "Zoë", "zoe\u0308"])
    sharing = {e.student_id: e.same_as for e in entries if e.same_as}
    assert sharing == {"Alice": "ALICE", "alice": "ALICE", "straße": "STRASSE", CAFE_NFC: CAFE_NFD, "zoe\u0308": "Zoë"}
    for sid, first in sharing.items():
        e = by_id[sid]
        assert e.folder is None and e.digest is None
        assert e.notes == [
            f"与 {first} 只有大小写或 Unicode 写法不同（会共用一个输出文件夹），未评分 / differs from {first} only in case or Unicode form (they would share an output folder): not graded"
        ]
        assert by_id[first].folder and by_id[first].notes == [] and by_id[first].same_as is None
    # The ids left have folders that no file system takes for one another.
    assert len({submissions.folder_key(submissions.safe_name(sid)) for sid in by_id if sid not in sharing}) == len(by_id) - len(sharing)
