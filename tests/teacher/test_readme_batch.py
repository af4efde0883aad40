"""README.md's first batch (its "Teachers" section), run as written: the
eight made-up students of examples/submissions graded into out/, then
nbgrader's own export of the gradebook the batch wrote. The pages of
docs/teachers/ hold every other teacher's command, run by their own tests."""

import csv
import shutil

from readme_sections import ROOT, Shell, blocks, commands


def test_the_readmes_first_batch(tmp_path):
    shutil.copytree(ROOT / "examples" / "submissions", tmp_path / "examples" / "submissions")
    (block,) = blocks("Teachers", "bash")
    argvs = commands(block)
    assert [argv[:6] for argv in argvs] == [["tox", "-e", "teacher", "--", "batch", "examples/submissions"], ["tox", "exec", "-e", "teacher", "--", "nbgrader"]]
    shell = Shell(tmp_path)
    for argv in argvs:
        shell.run(argv)  # each must end with 0
    out = tmp_path / "out"
    students = sorted(p.name.removesuffix(".zip") for p in (tmp_path / "examples" / "submissions").iterdir())
    with open(out / "grades.csv", encoding="utf-8", newline="") as f:
        assert sorted(row["student_id"] for row in csv.DictReader(f)) == students
    for name in ("report.html", "report.md", "similar.html", "gradebook.db"):
        assert (out / name).is_file(), name
    with open(out / "nbgrader.csv", encoding="utf-8", newline="") as f:
        exported = list(csv.DictReader(f))
    assert {row["student_id"] for row in exported} == set(students)
