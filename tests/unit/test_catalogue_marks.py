"""The catalogue's marks (tests/support/catalogue_marks.py): every exercise of the
table has exactly one wrong file of each kind, and the reader finds what is
missing, doubled or unknown."""

from pathlib import Path

from catalogue_marks import KINDS, WRONG, diagnoses, marked, marks, problems, without_marks

from grader.exercises import IDS

DOC = '"""ex0 mistake: something.\nzh: 某事。\n"""\n'


def test_every_exercise_has_one_marked_file_of_each_kind():
    assert problems() == []
    for kind in KINDS:
        chosen = marked(kind)
        assert sorted(chosen) == sorted(IDS), kind
        for ex, stem in chosen.items():
            assert stem.startswith(ex + "__") and (WRONG / f"{stem}.py").is_file()


def test_marks_are_read_from_their_line():
    text = DOC + "# marked: representative,  cross-student\nimport torch\n"
    assert marks(text) == ["representative", "cross-student"]
    assert without_marks(text) == DOC + "import torch\n"
    assert marks(DOC + "x = 1  # marked: representative\n") == []  # only a line of its own


def test_diagnoses_are_read_from_their_lines():
    text = DOC + "# marked: representative\n# diagnosis: There is no mask\n# diagnosis:  tril and triu are swapped \nimport torch\n"
    assert diagnoses(text) == ["There is no mask", "tril and triu are swapped"]
    assert marks(text) == ["representative"]
    assert without_marks(text) == DOC + "import torch\n"
    assert diagnoses(DOC + "x = 1  # diagnosis: There is no mask\n") == []  # only a line of its own


def _folder(tmp_path: Path, files: dict) -> Path:
    for stem, kinds in files.items():
        (tmp_path / f"{stem}.py").write_text(DOC + (f"# marked: {kinds}\n" if kinds else "") + "x = 1\n", encoding="utf-8")
    return tmp_path


def test_a_missing_a_doubled_and_an_unknown_mark_are_reported(tmp_path):
    every = ", ".join(KINDS)
    folder = _folder(tmp_path, {"ex0_a__one": every, "ex1_b__one": "representative, release-set-1, release-set-2",
                                "ex1_b__two": "representative, cross-student, typo"})  # fmt: skip
    found = problems(folder, ids=("ex0_a", "ex1_b", "ex2_c"))
    assert any("ex1_b: 2 wrong files marked 'representative'" in p for p in found), found
    assert any("unknown mark 'typo'" in p for p in found), found
    for kind in KINDS:
        assert any(f"ex2_c: no wrong file marked {kind!r}" in p for p in found), found
    assert not any(p.startswith("ex0_a") for p in found), found
    assert marked("representative", folder, ids=("ex0_a", "ex2_c")) == {"ex0_a": "ex0_a__one"}
