"""The marks in the catalogue's wrong files: which mistake each test picks per exercise.

Some tests grade one chosen mistake per exercise. The choice is written in the
wrong file itself, on a line right under its docstring::

    # marked: representative, release-set-1, cross-student

one or more of ``KINDS``, separated by commas:

- ``representative``: graded in a full submission (tests/grading/test_catalogue.py):
  it loses points on its own exercise and costs nothing on any other;
- ``release-set-1``, ``release-set-2``: the two wrong submissions graded
  inside the student release (tests/teacher/test_release.py): a public check must
  catch each;
- ``cross-student``: the typical mistake of the batch's ``d_mistakes``
  student (tests/sandbox/test_cross_student.py).

Every exercise of the table (grader/exercises.py) has exactly one file of each
kind: ``problems()`` says where not, and tests/unit/test_catalogue_marks.py fails
then. So a new exercise needs no edit here nor in those tests, only the marks
in its own catalogue files.

A wrong file also says which diagnoses (the hints that name a mistake, shown
as "诊断 / found:") its own mistake may get, one line each, under its
docstring too::

    # diagnosis: There is no position embedding

words of the diagnosis's English text (``diagnoses``). A diagnosis that a
grading shows for the file and no line of it names belongs to another
mistake: tests/grading/test_catalogue.py fails then.
"""

import re
from pathlib import Path

from grader.exercises import IDS

WRONG = Path(__file__).resolve().parents[1] / "catalogue" / "wrong"

KINDS = ("representative", "release-set-1", "release-set-2", "cross-student")
PREFIX = "# marked:"
_LINE = re.compile(r"^# marked:(.*)$", re.MULTILINE)
DIAGNOSIS_PREFIX = "# diagnosis:"
_DIAGNOSIS_LINE = re.compile(r"^# diagnosis:(.*)$", re.MULTILINE)


def exercise_of(path: Path) -> str:
    return path.stem.split("__")[0]


def marks(text: str) -> list[str]:
    """The kinds a catalogue file's text is marked with (every ``# marked:`` line)."""
    return [kind.strip() for line in _LINE.findall(text) for kind in line.split(",") if kind.strip()]


def diagnoses(text: str) -> list[str]:
    """The words of each diagnosis a catalogue file's text says its mistake may get (every ``# diagnosis:`` line)."""
    return [words.strip() for words in _DIAGNOSIS_LINE.findall(text) if words.strip()]


def without_marks(text: str) -> str:
    """The text without its ``# marked:`` and ``# diagnosis:`` lines: the mistake as a student would write it."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith((PREFIX, DIAGNOSIS_PREFIX)))


def _marked_files(folder: Path) -> dict[str, dict[str, list[str]]]:
    """kind -> exercise -> the stems marked with that kind, in file order."""
    found: dict[str, dict[str, list[str]]] = {kind: {} for kind in KINDS}
    for path in sorted(folder.glob("*.py")):
        for kind in marks(path.read_text(encoding="utf-8")):
            found.setdefault(kind, {}).setdefault(exercise_of(path), []).append(path.stem)
    return found


def marked(kind: str, folder: Path = WRONG, ids: tuple[str, ...] = IDS) -> dict[str, str]:
    """exercise id -> the stem of its file marked ``kind``, for every exercise
    of ``ids`` that has one (``problems()`` reports those that have none or two)."""
    assert kind in KINDS, kind
    found = _marked_files(folder)[kind]
    return {ex: found[ex][0] for ex in ids if found.get(ex)}


def problems(folder: Path = WRONG, ids: tuple[str, ...] = IDS) -> list[str]:
    """What is wrong with the marks: a kind missing or doubled for an exercise,
    an unknown kind, a mark on a file of no exercise of ``ids``."""
    out = []
    for kind, by_exercise in _marked_files(folder).items():
        if kind not in KINDS:
            out.append(f"unknown mark {kind!r} on {', '.join(s for stems in by_exercise.values() for s in stems)} (known: {', '.join(KINDS)})")
            continue
        for ex in ids:
            stems = by_exercise.get(ex, [])
            if not stems:
                out.append(f"{ex}: no wrong file marked {kind!r} (add '{PREFIX} {kind}' under the docstring of one)")
            elif len(stems) > 1:
                out.append(f"{ex}: {len(stems)} wrong files marked {kind!r}: {', '.join(stems)} (mark one)")
        for ex in sorted(set(by_exercise) - set(ids)):
            out.append(f"{', '.join(by_exercise[ex])}: marked {kind!r} but {ex} is no exercise of the table")
    return out
