"""The nbgrader cell metadata the course gives its notebooks: the grade ids
of an exercise's answer cell and autograder test cell, and the metadata each
carries (schema 3, as nbgrader 0.9's ``CheckCellMetadata`` reads it: its
documentation's "Developer documentation / Metadata" page).

Both sides read it: ``nbgrader_course`` writes the course's source notebooks
with it, and ``nbgrader_autograde`` finds the cells it grades and puts back
metadata a student changed. It lives apart from both so that neither imports
the other (and writing a course does not load nbgrader itself).
"""

from grader.exercises import BY_ID

SCHEMA = 3
ANSWER_CELL = "answer_"  # grade id of an answer cell: answer_<exercise id>
TEST_CELL = "test_"  # an autograder test cell's grade id: test_<exercise id>


def metadata(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None) -> dict:
    """A cell's ``nbgrader`` metadata."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def answer_exercise(grade_id: str) -> str | None:
    """The exercise whose answer cell has ``grade_id``, if any."""
    exercise = grade_id[len(ANSWER_CELL) :] if grade_id.startswith(ANSWER_CELL) else None
    return exercise if exercise in BY_ID else None


def test_exercise(grade_id: str) -> str | None:
    """The exercise whose autograder test cell has ``grade_id``, if any."""
    exercise = grade_id[len(TEST_CELL) :] if grade_id.startswith(TEST_CELL) else None
    return exercise if exercise in BY_ID else None


def answer_metadata(exercise_id: str) -> dict:
    return metadata(ANSWER_CELL + exercise_id, grade=False, solution=True, locked=False)


def test_metadata(exercise_id: str) -> dict:
    return metadata(TEST_CELL + exercise_id, grade=True, solution=False, locked=True, points=float(BY_ID[exercise_id].points))


def course_metadata(grade_id: str, cell_type: str | None) -> dict | None:
    """The nbgrader metadata the course gives the cell of ``grade_id`` (an
    answer or a test cell of one of its exercises), or None."""
    if cell_type != "code":
        return None
    exercise = answer_exercise(grade_id)
    if exercise is not None:
        return answer_metadata(exercise)
    exercise = test_exercise(grade_id)
    return test_metadata(exercise) if exercise is not None else None
