"""Exercises handed in as Jupyter notebooks (``<id>.ipynb``): graded as the
code of their answer cells, by the same grader and the same sandboxed
child as a ``.py`` (grader/handin/notebook_source.py, grader/handin/submission.py).

The notebooks here are written by nbformat itself (``nbformat.v4``), shaped
exactly as Jupyter saves them.
"""

import ast
import hashlib
import json
import os
import zipfile
from pathlib import Path

import nbformat
import pytest
from catalogue_marks import WRONG, exercise_of, marks
from conftest import ROOT, SOLUTIONS, as_results, failed_checks, make_submission, points_by_exercise

from grader.exercises import BY_ID, IDS
from grader.files import EXERCISES_DIR
from grader.handin import notebook_source


def cells_of(source: str) -> list[str]:
    """``source`` cut into cells as a student would: one per top-level
    definition, the imports and constants before them in a cell of their own."""
    tree = ast.parse(source)
    lines = source.splitlines()
    starts = sorted({0} | {n.lineno - 1 - len(getattr(n, "decorator_list", [])) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))})
    return ["\n".join(lines[a:b]).strip("\n") for a, b in zip(starts, starts[1:] + [len(lines)]) if "\n".join(lines[a:b]).strip()]


def notebook(*cells, answer_of: str | None = None, magics: bool = True) -> str:
    """A notebook of code ``cells`` after a markdown title (and a line magic
    cell when ``magics``); ``answer_of``: mark the cells as that exercise's
    answer cells, as the course's notebooks do."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# 练习 / Exercise"))
    if magics:
        nb.cells.append(nbformat.v4.new_code_cell("%matplotlib inline\n!pip --version\nimport torch"))
    for text in cells:
        cell = nbformat.v4.new_code_cell(text)
        if answer_of:
            cell.metadata["exercise"] = answer_of
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nbformat.writes(nb)


def notebook_submission(folder, replace: dict | None = None) -> str:
    """The solutions (or ``replace``'s sources) as notebooks, one per
    exercise, each cut into cells; no .py files."""
    folder = str(folder)
    os.makedirs(folder, exist_ok=True)
    for ex in IDS:
        source = (replace or {}).get(ex) or Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8")
        Path(folder, ex + ".ipynb").write_text(notebook(*cells_of(source)), encoding="utf-8")
    return folder


def read(text, exercise="ex0_weighted_sum"):
    return notebook_source.read(text.encode() if isinstance(text, str) else text, f"{exercise}.ipynb", exercise)


# --- reading a notebook ------------------------------------------------------


def test_ipython_lines_become_comments_and_python_stays():
    code = read(
        notebook(
            "s = '''\n%not a magic: inside a string\n'''\nx = (1 +\n     2)\nif True:\n    %time y = x\nfiles = !ls\ntorch.softmax?\nget_ipython().run_line_magic('pwd', '')",
            "%%bash\necho hi",
            "%%time\nz = 3",
            magics=False,
        )
    )
    namespace = {"torch": None}
    exec(compile(code.source, "nb", "exec"), namespace)
    assert namespace["s"] == "\n%not a magic: inside a string\n"
    assert (namespace["y"], namespace["z"]) == (3, 3)  # %time and %%time keep the code they time
    assert "echo hi" not in [line.strip() for line in code.source.splitlines()]
    note = str(code.notes[0])
    for shown in ("cell 2, line 7: %time y = x runs once as y = x", "files = !ls became a comment", "cell 3, line 1: %%bash", "get_ipython()"):
        assert shown in note
    assert "%not a magic" not in note


def test_lines_are_named_by_cell():
    code = read(notebook("import torch", "def f():\n    return 1"))
    lines = code.source.splitlines()
    n = lines.index("    return 1") + 1
    assert code.where(n).en == "ex0_weighted_sum.ipynb, cell 4, line 2"
    assert code.where(n).zh == "ex0_weighted_sum.ipynb 第 4 个单元格第 2 行"


def test_marked_answer_cells_are_the_only_code_graded():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("experiment = 1"),
        nbformat.v4.new_code_cell("def weighted_sum(s, v):\n    return v", metadata={"exercise": "ex0_weighted_sum"}),
        nbformat.v4.new_code_cell("def helper():\n    pass", metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": "h", "locked": False, "schema_version": 3}}),
        nbformat.v4.new_code_cell('check("ex0_weighted_sum")'),
        nbformat.v4.new_code_cell("other = 1", metadata={"exercise": "ex1_averaging"}),
    ]
    code = read(nbformat.writes(nb))
    assert "weighted_sum" in code.source and "helper" in code.source
    assert "experiment" not in code.source and "check(" not in code.source and "other" not in code.source
    assert "graded its 2 answer cells (cells 2, 3), joined in order" in str(code.notes[-1])


# --- the note on which cells were graded: only when the student could not tell -


def course_notebook(ex: str, edit=lambda cells: None) -> str:
    """The course's notebook of ``ex`` (notebooks/) with the reference in its answer cell, changed by ``edit``."""
    nb = nbformat.read(Path(ROOT, "notebooks", BY_ID[ex].notebook), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("exercise") == ex:
            cell.source = Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8")
    edit(nb.cells)
    return nbformat.writes(nb)


def nbgrader_notebook(*solutions: str) -> str:
    """A notebook as nbgrader's release has it: a markdown cell, then each of
    ``solutions`` in a solution cell, then a locked test cell."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# ex0"))
    for i, text in enumerate(solutions):
        meta = {"nbgrader": {"solution": True, "grade": False, "grade_id": f"answer{i}", "locked": False, "schema_version": 3}}
        nb.cells.append(nbformat.v4.new_code_cell(text, metadata=meta))
    test = {"nbgrader": {"solution": False, "grade": True, "grade_id": "test", "locked": True, "points": 10, "schema_version": 3}}
    nb.cells.append(nbformat.v4.new_code_cell('points("ex0_weighted_sum")', metadata=test))
    return nbformat.writes(nb)


def cells_noted(code) -> list[str]:
    return [str(n) for n in code.notes if "单元格（第" in n.zh or "cell" in n.en and "graded" in n.en]


@pytest.mark.parametrize(
    "text",
    [
        course_notebook("ex0_weighted_sum"),  # as given, answered
        course_notebook("ex4_masking"),
        nbgrader_notebook("def weighted_sum(s, v):\n    return v"),  # one solution cell
    ],
    ids=["course-ex0", "course-ex4", "nbgrader"],
)
def test_one_marked_answer_cell_goes_without_a_note(text):
    """The notebook says which cell is graded, and errors name their cell:
    a note on every report ("graded its answer cells (cell 7)") told nothing."""
    ex = "ex4_masking" if "causal_mask" in text else "ex0_weighted_sum"
    code = read(text, ex)
    assert code.source.strip() and cells_noted(code) == [] and code.notes == []


def _unmark(cells):
    """The answer cell deleted and the answer typed into a new cell in its place: the new one has no mark."""
    answer = next(i for i, c in enumerate(cells) if c.metadata.get("exercise"))
    cells[answer] = nbformat.v4.new_code_cell(cells[answer].source)


@pytest.mark.parametrize(
    "text, cells",
    [
        (course_notebook("ex0_weighted_sum", _unmark), "3, 5, 7, 9"),
        (notebook("import torch", "def weighted_sum(s, v):\n    return v", magics=False), "2, 3"),  # a student's own notebook
    ],
    ids=["answer-cell-retyped", "own-notebook"],
)
def test_a_notebook_that_marks_no_cell_says_every_code_cell_was_graded(text, cells):
    (note,) = cells_noted(read(text))
    assert "no cell is marked as this exercise's answer" in note and f"every code cell was graded (cells {cells})" in note
    assert f"全部代码单元格（第 {cells} 个）" in note and "a new cell has no mark" in note


def _copy_answer(cells):
    """The answer cell copied below itself (Jupyter's C, V): the copy keeps the cell's metadata."""
    answer = next(i for i, c in enumerate(cells) if c.metadata.get("exercise"))
    cells.insert(answer + 1, nbformat.from_dict(json.loads(json.dumps(cells[answer]))))
    cells[answer + 1].id = "copied"


@pytest.mark.parametrize(
    "text, cells",
    [
        (course_notebook("ex0_weighted_sum", _copy_answer), "7, 8"),
        (nbgrader_notebook("import torch", "def weighted_sum(s, v):\n    return v"), "2, 3"),
    ],
    ids=["copied-answer-cell", "nbgrader-two-solution-cells"],
)
def test_several_marked_cells_are_named_and_said_to_be_joined(text, cells):
    (note,) = cells_noted(read(text))
    assert f"graded its 2 answer cells (cells {cells}), joined in order" in note and "keeps its mark" in note
    assert f"标为答案的 2 个单元格（第 {cells} 个）" in note


def test_a_check_of_the_course_notebook_reports_no_note(grader, tmp_path):
    """What ``check`` shows for the course's notebook as a student answers it: the table, no note."""
    from grader.student import report

    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / "ex0_weighted_sum.ipynb").write_text(course_notebook("ex0_weighted_sum"), encoding="utf-8")
    (folder / "ex5_head.ipynb").write_text(course_notebook("ex5_head", _copy_answer), encoding="utf-8")
    grade = grader.grade(str(folder))
    assert "ex0_weighted_sum" not in grade.notes and "注意 / note (ex0_weighted_sum)" not in report.terminal(grade)
    assert "graded its 2 answer cells" in report.notes_text(grade)  # ex5: a copied answer cell


@pytest.mark.parametrize(
    "data, says",
    [
        (b'{"cells": [', "not valid JSON"),
        (b"\xff\xfe{}", "not valid JSON"),
        (b"[1, 2]", "no nbformat version"),
        (json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}).encode(), "(nbformat 3)"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}).encode(), "not a valid nbformat 4 notebook"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": 1}]}).encode(), "not a valid nbformat 4 notebook"),
    ],
)
def test_a_broken_notebook_is_refused_with_a_reason(data, says):
    with pytest.raises(notebook_source.NotebookError) as caught:
        read(data)
    assert says in caught.value.text.en
    assert caught.value.text.zh and caught.value.text.zh != caught.value.text.en


def test_broken_outputs_cost_nothing():
    nb = json.loads(notebook("def weighted_sum(s, v):\n    return v"))
    nb["cells"][-1]["outputs"] = [{"output_type": "no such type"}]
    assert "def weighted_sum" in read(json.dumps(nb)).source


# --- grading -----------------------------------------------------------------


@pytest.fixture(scope="module")
def mistakes() -> dict:
    """One representative catalogue mistake per exercise (exercise id -> source)."""
    chosen = {}
    for path in sorted(WRONG.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "representative" in marks(text):
            chosen[exercise_of(path)] = text
    assert set(chosen) == set(IDS)
    return chosen


def test_the_solutions_as_notebooks_score_full_marks(grader, tmp_path, full_marks):
    grade = grader.grade(notebook_submission(tmp_path / "nb"))
    assert not grade.errors
    assert points_by_exercise(as_results(grade)) == full_marks
    assert set(grade.notes) == set(IDS)  # each: the magics cell's lines became comments


def test_a_mistake_loses_the_same_checks_as_in_a_py_file(grader, tmp_path, mistakes):
    as_py = as_results(grader.grade(make_submission(tmp_path / "py", mistakes)))
    as_nb = as_results(grader.grade(notebook_submission(tmp_path / "nb", mistakes)))
    assert points_by_exercise(as_nb) == points_by_exercise(as_py)
    for ex in IDS:
        assert failed_checks(as_nb, ex) == failed_checks(as_py, ex) != set(), ex


def test_errors_name_the_cell_and_line(grader, tmp_path):
    folder = make_submission(tmp_path / "s")
    os.remove(os.path.join(folder, "ex0_weighted_sum.py"))
    os.remove(os.path.join(folder, "ex1_averaging.py"))
    Path(folder, "ex0_weighted_sum.ipynb").write_text(notebook("def helper(w):\n    return w.no_such_method()", "def weighted_sum(scores, values):\n    return helper(scores)"), encoding="utf-8")
    Path(folder, "ex1_averaging.ipynb").write_text(notebook("def averaging_matrix(T)\n    pass"), encoding="utf-8")
    grade = grader.grade(folder, only=None)
    feedback = {r.exercise: r.feedback for r in grade.results if not r.passed}
    assert "ex0_weighted_sum.ipynb, cell 4, line 2: return helper(scores)" in feedback["ex0_weighted_sum"]
    assert "ex0_weighted_sum.ipynb, cell 3, line 2: return w.no_such_method()" in feedback["ex0_weighted_sum"]
    assert "syntax error in" in feedback["ex1_averaging"] and "ex1_averaging.ipynb, cell 3, line 1" in feedback["ex1_averaging"]
    assert "第 3 个单元格第 1 行" in feedback["ex1_averaging"]


def test_a_broken_notebook_costs_its_own_exercise_only(grader, tmp_path, full_marks):
    folder = make_submission(tmp_path / "s")
    os.remove(os.path.join(folder, "ex2_scores.py"))
    Path(folder, "ex2_scores.ipynb").write_text('{"cells": [', encoding="utf-8")
    results = as_results(grader.grade(folder))
    points = points_by_exercise(results)
    assert points["ex2_scores"] == 0
    assert {ex: p for ex, p in points.items() if ex != "ex2_scores"} == {ex: p for ex, p in full_marks.items() if ex != "ex2_scores"}
    said = [t["output"] for t in results["tests"] if t["tags"][0] == "ex2_scores"]
    assert all("ex2_scores.ipynb is not valid JSON" in s and "不是有效的 JSON" in s for s in said)


def _solution_notebook(ex: str, edit=lambda nb: None) -> str:
    """The solution as one answer cell, changed by ``edit`` (a notebook as JSON data)."""
    nb = json.loads(notebook(Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8"), answer_of=ex))
    edit(nb)
    return json.dumps(nb)  # ensure_ascii: a lone surrogate is written as Jupyter would, "\\ud800"


def _deep(levels: int):
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


def _set(path, value):
    def edit(nb):
        target = nb
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _append_to_answer(text: str):
    def edit(nb):
        nb["cells"][-1]["source"] += text

    return edit


# Notebooks no reader may stop at: each costs its own exercise (0 and a note
# that says why) or nothing, never the grading. (exercise, the edit made to
# its solution notebook, words of the note or None where it earns full marks)
UNREADABLE = {
    # Half of a UTF-16 pair, as JSON escapes it: in a string, in a comment.
    "surrogate_in_a_string": ("ex0_weighted_sum", _append_to_answer("\nMARK = '\ud800'\n"), ["lone surrogate, U+D800", "cell 3, line"]),
    "surrogate_in_a_comment": ("ex1_averaging", _append_to_answer("\n# \udfff\n"), ["lone surrogate, U+DFFF", "第 3 个单元格"]),
    # Outside the graded code it costs nothing: a markdown cell, an output.
    "surrogate_in_markdown": ("ex2_scores", _set(["cells", 0, "source"], "# \ud83d"), None),
    "surrogate_in_an_output": ("ex3_scaling", _set(["cells", -1, "outputs"], [{"output_type": "stream", "name": "stdout", "text": "\udc80"}]), None),
    # JSON nested beyond what json reads (thousands of levels), and an
    # invalid cell nested beyond what nbformat's validator can describe
    # (hundreds: its message recursed until Python stopped it).
    "deep_cell_metadata": ("ex4_masking", _set(["cells", -1, "metadata", "deep"], None), ["nests its JSON too deeply"]),
    "deep_and_invalid": ("ex5_head", _set(["cells", -1, "source"], _deep(900)), ["is not a valid nbformat 4 notebook"]),
    # More cells than anyone keeps; more code than a file may hold.
    "too_many_cells": ("ex6_block", lambda nb: nb["cells"].extend([nbformat.v4.new_markdown_cell("x")] * (notebook_source.MAX_CELLS + 1)), ["cells, and the limit is"]),
    "too_much_code": ("ex7_gpt", _append_to_answer("\n" + "%time x = 1\n" * 120_000), ["holds too much code"]),
}
DEEP_JSON = "[" * 5000 + "]" * 5000  # beyond the json module's own recursion


def _write_unreadable(folder) -> str:
    folder = make_submission(folder)
    for case, (ex, edit, _) in UNREADABLE.items():
        os.remove(os.path.join(folder, ex + ".py"))
        text = _solution_notebook(ex, edit)
        if case == "deep_cell_metadata":
            text = text.replace('"deep": null', '"deep": ' + DEEP_JSON)
        Path(folder, ex + ".ipynb").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def unreadable(grader, tmp_path_factory):
    return as_results(grader.grade(_write_unreadable(tmp_path_factory.mktemp("unreadable") / "s")))


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_notebook_no_reader_foresaw_costs_its_own_exercise_at_most(unreadable, full_marks, case):
    ex, _, words = UNREADABLE[case]
    points = points_by_exercise(unreadable)
    said = [t["output"] for t in unreadable["tests"] if t["tags"][0] == ex]
    if words is None:
        assert points[ex] == full_marks[ex], said[:1]
        return
    assert points[ex] == 0
    for word in words:
        assert all(word in s for s in said), (word, said[0])


def test_a_grading_of_unreadable_notebooks_ends_with_its_report(tmp_path):
    """The command line, as a student runs it: exit 0, results.json written."""
    from conftest import python_m_grader

    folder = _write_unreadable(tmp_path / "s")
    out = python_m_grader(["grade", folder, "--json", str(tmp_path / "results.json")], cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert {t["tags"][0] for t in results["tests"]} == set(IDS)
    assert "lone surrogate" in out.stdout and "too deeply" in out.stdout


def test_a_reader_that_fails_unforeseen_costs_that_exercise_only(grader, tmp_path, full_marks, monkeypatch):
    """The last line of defence: any error while reading one exercise's file
    is that exercise's note, whatever its kind."""
    from grader.handin import submission as submission_mod

    real = submission_mod.notebook_source.read

    def read(data, display_name, exercise_id, **kwargs):
        if exercise_id == "ex2_scores":
            raise LookupError("a kind nobody foresaw")
        return real(data, display_name, exercise_id, **kwargs)

    monkeypatch.setattr(submission_mod.notebook_source, "read", read)
    folder = make_submission(tmp_path / "s")
    os.remove(os.path.join(folder, "ex2_scores.py"))
    Path(folder, "ex2_scores.ipynb").write_text(_solution_notebook("ex2_scores"), encoding="utf-8")
    results = as_results(grader.grade(folder))
    points = points_by_exercise(results)
    assert points["ex2_scores"] == 0
    assert {ex: p for ex, p in points.items() if ex != "ex2_scores"} == {ex: p for ex, p in full_marks.items() if ex != "ex2_scores"}
    said = [t["output"] for t in results["tests"] if t["tags"][0] == "ex2_scores"]
    assert all("could not be read (LookupError)" in s and "读不了" in s for s in said)


def test_of_a_py_and_a_notebook_the_stated_one_is_graded(grader, tmp_path, full_marks):
    """The .py is graded unless it is still the untouched stub; the note says which."""
    ex = "ex0_weighted_sum"
    stub = Path(EXERCISES_DIR, ex + ".py").read_text(encoding="utf-8")
    right = Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8")
    stub_beside = make_submission(tmp_path / "a", {ex: stub})
    Path(stub_beside, ex + ".ipynb").write_text(notebook(right), encoding="utf-8")
    grade = grader.grade(stub_beside, only=ex)
    assert grade.exercise_points(ex) == (full_marks[ex], full_marks[ex])
    assert "ex0_weighted_sum.ipynb was graded, as ex0_weighted_sum.py is still the untouched stub" in str(grade.notes[ex][0])

    edited_beside = make_submission(tmp_path / "b", {ex: stub.replace("raise NotImplementedError", "return values[..., 0, :]  # mine")})
    Path(edited_beside, ex + ".ipynb").write_text(notebook(right), encoding="utf-8")
    grade = grader.grade(edited_beside, only=ex)
    assert grade.exercise_points(ex)[0] < full_marks[ex]
    assert "ex0_weighted_sum.py was graded, not ex0_weighted_sum.ipynb" in str(grade.notes[ex][0])


def test_what_a_notebook_says_reaches_every_report_escaped(grader, tmp_path):
    """A quoted IPython line and the notebook's own name are the student's
    text: a terminal sequence shows as its escape, HTML as text, and no
    fence of the Markdown report is closed by it."""
    from grader.notebook import to_html
    from grader.student import report

    ex = "ex0_weighted_sum"
    folder = make_submission(tmp_path / "s")
    os.remove(os.path.join(folder, ex + ".py"))
    line = "%clear \x1b[2J\x1b]0;owned\x07 </pre><script>alert(1)</script> ```"
    Path(folder, ex + ".ipynb").write_text(notebook(line + "\n" + Path(SOLUTIONS, ex + ".py").read_text(encoding="utf-8"), magics=False), encoding="utf-8")
    grade = grader.grade(folder, only=ex)
    terminal, markdown, results = report.terminal(grade), report.markdown(grade), as_results(grade)
    assert "\x1b" not in terminal and "\\x1b[2J" in terminal and "became a comment" in terminal
    assert "<script>" not in results["output"] and "&lt;script&gt;" in results["output"]
    assert "<script>" not in to_html(results, terminal)
    fence = next(line for line in markdown.splitlines() if line.startswith("```"))
    assert markdown.count(fence + "\n") >= 1 and "\x1b" not in markdown


def test_the_untouched_notebooks_score_nothing(grader, tmp_path):
    stubs = {ex: Path(EXERCISES_DIR, ex + ".py").read_text(encoding="utf-8") for ex in IDS}
    grade = grader.grade(notebook_submission(tmp_path / "nb", stubs))
    assert grade.score == 0 and not grade.errors


# --- where notebooks are handed in -------------------------------------------


def test_a_class_folder_of_notebooks_is_found(tmp_path):
    from grader.teacher.intake import submissions

    root = tmp_path / "class"
    notebook_submission(root / "alice")
    (root / "bob").mkdir()
    with zipfile.ZipFile(root / "bob.zip", "w") as z:
        z.writestr("attention/ex0_weighted_sum.ipynb", notebook("x = 1"))
    os.rmdir(root / "bob")
    entries, warnings = submissions.discover(str(root), str(tmp_path / "work"))
    by_id = {e.student_id: e for e in entries}
    assert by_id["alice"].folder and by_id["alice"].notes == []
    assert by_id["bob"].folder and os.path.exists(os.path.join(by_id["bob"].folder, "ex0_weighted_sum.ipynb"))
    # What is graded decides the digest: a changed notebook is graded again.
    before = by_id["alice"].digest
    Path(root, "alice", "ex3_scaling.ipynb").write_text(notebook("y = 2"), encoding="utf-8")
    after = {e.student_id: e for e in submissions.discover(str(root), str(tmp_path / "work2"))[0]}["alice"].digest
    assert after != before


def test_py_files_keep_their_digest(tmp_path):
    """A resumed batch from before notebooks were read grades nothing twice."""
    from grader.teacher.intake import submissions

    sources = {ex + ".py": f"# {ex}\n".encode() for ex in IDS}
    h = hashlib.sha256()
    for ex in IDS:  # the digest as it was written before notebooks
        value = sources[ex + ".py"]
        h.update(ex.encode() + b"\0" + b"file\0" + len(value).to_bytes(8, "big") + value)
    assert submissions.digest(sources) == h.hexdigest()
    assert submissions.digest({**sources, "ex0_weighted_sum.ipynb": b"{}"}) != h.hexdigest()
    assert BY_ID["ex0_weighted_sum"].notebook == "ex0_weighted_sum.ipynb"
