"""``nbgrader autograde`` without a kernel: the first of the course's
``Autograde.autograde_preprocessors`` (``nbgrader_course`` writes them into
nbgrader_config.py), in place of nbgrader's ``Execute``.

nbgrader's Execute runs the whole submitted notebook in a Jupyter kernel, as
the teacher's user, and reads each test cell's output as its points: the
answer cells run before the test cells, so they could read the solutions,
rewrite the gradebook or make a test cell show full marks. ``GradeInSandbox``
runs no cell. For each autograder test cell (grade id ``test_<id>``) it grades
the notebook's answer cells as ``python -m grader grade`` grades the same
notebook (grader/handin/notebook_source.py reads it; the sandboxed child runs it,
with the public and the hidden checks), then writes the cell's output: the
report, and the points earned as the cell's value, which nbgrader's
SaveAutoGrades reads as partial credit. Every other code cell is left
without output.

The report quotes no hidden check's input (``report.without_hidden_inputs``):
nbgrader's feedback shows it to the student.
"""

import atexit
import os
import tempfile

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.exercises import BY_ID
from grader.teacher.platforms import nbgrader_cells

_grader = None


def shared_grader():
    """One grader for the whole ``nbgrader autograde`` run: one zygote, and
    one secret for the checks' inputs, so the class meets the same ones."""
    global _grader
    if _grader is None:
        from grader.engine.grading import Grader

        _grader = Grader(many=True)
        atexit.register(_grader.close)
    return _grader


def exercise_of(cell) -> str | None:
    """The exercise an autograder test cell grades, from its grade id (which
    nbgrader's OverwriteCells has restored from the gradebook by now)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = meta.get("grade_id", "")
    if cell.get("cell_type") != "code" or not meta.get("grade") or not isinstance(grade_id, str):
        return None
    return nbgrader_cells.test_exercise(grade_id)


def grade_notebook(nb, exercise: str, folder_name: str = "."):
    """Grade ``nb``'s answer cells for ``exercise`` in the sandbox; the report
    names the notebook as ``folder_name/<id>.ipynb``."""
    with tempfile.TemporaryDirectory(prefix="attention-nbgrader-") as folder:
        with open(os.path.join(folder, BY_ID[exercise].notebook), "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
        return shared_grader().grade(folder, only=exercise, display_root=folder_name)


def test_cell_outputs(grade, exercise: str, max_points: float) -> list:
    """What a test cell shows: the student's report, then the points as its value."""
    from grader.student import report

    earned, _ = grade.exercise_points(exercise)
    return [
        nbformat.v4.new_output("stream", name="stdout", text=report.terminal(report.without_hidden_inputs(grade))),
        nbformat.v4.new_output("execute_result", data={"text/plain": repr(float(min(earned, max_points)))}, execution_count=1),
    ]


class KeepCopiedCells(NbGraderPreprocessor):
    """In place of nbgrader's ``DeduplicateIds`` in ``Autograde.sanitize_preprocessors``:
    a student's notebook whose nbgrader cell metadata nbgrader's own checks
    would refuse never stops the class.

    A student who copies a cell in Jupyter copies its metadata, grade id and
    all. ``DeduplicateIds`` keeps the last cell of an id and sets the others'
    metadata to ``{}``, which ``CheckCellMetadata`` then reads as schema 0:
    its SchemaTooOldError ends ``nbgrader autograde`` for that student and
    everyone after them (nbgrader 0.9's ``converters/base.py`` stops the run
    on it). Here an earlier copy loses its nbgrader metadata altogether; a
    copied answer cell stays an answer cell (``"exercise"`` metadata, which
    ``notebook_source`` reads): every copy is graded, in order, as
    ``python -m grader grade`` and ``check()`` grade the same notebook. A
    cell of the course's own grade ids whose metadata a student (or an old
    tool) changed gets the course's metadata back; a cell of another grade id
    with metadata nbgrader cannot read loses it. Each change is a note in the
    exercise's report (``attention_notes``, read by ``GradeInSandbox``)."""

    def preprocess(self, nb, resources):
        seen: set = set()
        notes: list = []
        for cell in reversed(nb.cells):
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            course = nbgrader_cells.course_metadata(grade_id, cell.get("cell_type")) if isinstance(grade_id, str) else None
            if isinstance(grade_id, str) and grade_id in seen:
                del cell.metadata["nbgrader"]
                exercise = nbgrader_cells.answer_exercise(grade_id)
                if exercise is not None:
                    cell.metadata["exercise"] = exercise
                notes.append(grade_id)
                continue
            if course is not None and dict(meta) != course:
                cell.metadata["nbgrader"] = course
                notes.append(grade_id)
            elif course is None and (not isinstance(meta, dict) or meta.get("schema_version") != nbgrader_cells.SCHEMA or not isinstance(grade_id, str)):
                del cell.metadata["nbgrader"]
                notes.append(str(grade_id))
            if isinstance(grade_id, str):
                seen.add(grade_id)
        if notes:
            nb.metadata["attention_notes"] = sorted(set(notes))
        return nb, resources


class RestoreHiddenTests(NbGraderPreprocessor):
    """In ``Autograde.sanitize_preprocessors``, before nbgrader's
    ``OverwriteCells``: a test cell as the release has it gets the teacher's
    source back, hidden part and all, without a warning.

    nbgrader's ``generate_assignment`` stores each locked cell's source and
    checksum in the gradebook before ``ClearHiddenTests`` takes the hidden
    part out of the released cell (the order of its preprocessors), so
    ``OverwriteCells`` finds every released test cell with a hidden part
    changed: it logs "Attribute 'checksum' for cell test_<id> has changed!"
    and puts the stored source back (nbgrader issue #1961), eight times for a
    student who hands in the eight notebooks untouched. Here a cell whose
    source is exactly the stored one with its hidden part cleared (by
    nbgrader's own ``ClearHiddenTests``) gets the stored source first; a
    cell a student changed otherwise still gets nbgrader's warning.
    GradeInSandbox never runs the cell's source: only the warning changes."""

    def preprocess(self, nb, resources):
        import copy

        from nbgrader.api import Gradebook, MissingEntry
        from nbgrader.preprocessors import ClearHiddenTests

        info = resources["nbgrader"]
        clear = ClearHiddenTests(parent=self)  # the course's delimiters, should it set any
        with Gradebook(info["db_url"]) as gradebook:
            for cell in nb.cells:
                meta = cell.get("metadata", {}).get("nbgrader", {})
                if cell.get("cell_type") != "code" or not meta.get("locked") or not isinstance(meta.get("grade_id"), str):
                    continue
                try:
                    stored = gradebook.find_source_cell(meta["grade_id"], info["notebook"], info["assignment"]).source
                except MissingEntry:
                    continue  # OverwriteCells says so
                released = copy.deepcopy(cell)
                released.source = stored
                if clear._remove_hidden_test_region(released) and released.source == cell.source:
                    cell.source = stored
        return nb, resources


def _notes_of(nb) -> str:
    ids = nb.metadata.get("attention_notes") or []
    if not ids:
        return ""
    from grader.text import visible

    # Grade ids are the student's text (a cell's metadata): shown escaped.
    named = ", ".join(visible(str(i)[:40], name=True) for i in ids[:5])
    return (
        f"注意 / note: 笔记本里 nbgrader 的单元格信息被复制或改动过（{named}）：复制的答案单元格都按顺序评了分，其余的照课程原样恢复\n"
        f"  this notebook's nbgrader cell metadata was copied or changed ({named}): every copy of an answer cell was graded, in order, and the rest restored as the course has it\n"
    )


class GradeInSandbox(NbGraderPreprocessor):
    """Grades a submitted notebook outside any kernel; see the module's docstring."""

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        for cell in nb.cells:
            exercise = exercise_of(cell)
            if exercise is None:
                continue
            grade = grade_notebook(nb, exercise, resources.get("nbgrader", {}).get("assignment") or ".")
            cell.outputs = test_cell_outputs(grade, exercise, float(cell.metadata.nbgrader["points"]))
            if _notes_of(nb):
                cell.outputs.insert(0, nbformat.v4.new_output("stream", name="stdout", text=_notes_of(nb)))
            cell.execution_count = 1
        return nb, resources
