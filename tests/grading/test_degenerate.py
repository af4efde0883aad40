"""The degenerate catalogue: answers that are no answer at all earn nothing.

The rule: an implementation that returns zeros, a constant, its input
unchanged, random values, NaN or the wrong shape scores 0 on every check of its
exercise.

For every exercise, every function and module it asks for (``TARGETS`` in
``tests/support/degenerate.py``, from the table's ``defines``; a module whose checks
call several of its methods, such as GPT's forward and generate, by method:
the row's ``methods``) and every kind of degenerate
answer (``KINDS``), a
submission file is generated from the solution: the target computes the
reference's answer, only to learn its shape and dtype, and returns the
degenerate value instead; every other function or class of the exercise raises
``NotImplementedError``, as in a stub. Exercises with several targets also get
one file per kind in which all of them are degenerate at once (for exercises
with a single target that file would be the same as the target's own).

A module's degenerate output stays in the autograd graph (``out * 0``, not a
fresh ``torch.zeros``): a gradient check must find the gradients wrong, not
merely trip over an output that cannot be back-propagated.

Each file is graded once, in process, by the session ``grader`` with
``only=`` its exercise. The case fails, naming every check that passed, when
the exercise scores anything. A control grading per exercise (every target
returning the reference's own answer through the same machinery) must score
full marks, so that a zero is the checks' verdict on the answers, not a
side effect of how the files are built.
"""

import pytest
from conftest import make_submission
from degenerate import CONTROL, KINDS, TARGETS, coverage_problems, source


def _cases() -> list:
    cases = []
    for exercise, targets in TARGETS.items():
        for target in targets:
            for kind in KINDS:
                cases.append(pytest.param(exercise, (target,), kind, id=f"{exercise}-{target}-{kind}"))
        if len(targets) > 1:
            for kind in KINDS:
                cases.append(pytest.param(exercise, targets, kind, id=f"{exercise}-all-{kind}"))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def graded(grader, tmp_path_factory) -> dict:
    """(exercise, targets, kind) -> the grade of its generated file, that
    exercise only: every case and control of an exercise in one pytest
    session of the grader (``grade_each``, as a batch grades a class), each
    checked first for a grading that itself went right."""
    from grader.engine.grading import Job

    cases = [tuple(p.values) for p in CASES] + [(ex, TARGETS[ex], CONTROL) for ex in TARGETS]
    out = {}
    for exercise in TARGETS:
        jobs = [Job(make_submission(tmp_path_factory.mktemp("degenerate"), {exercise: source(*case)}), key=case) for case in cases if case[0] == exercise]
        grader.grade_each(jobs, lambda job, grade: out.__setitem__(job.key, grade), only=exercise)
    return out


def grade_generated(graded, exercise: str, targets: tuple[str, ...], kind: str):
    """The grade of the generated file of (exercise, targets, kind), after
    making sure the grading itself went right."""
    grade = graded[exercise, targets, kind]
    assert not isinstance(grade, BaseException), grade
    assert not grade.errors, grade.errors
    assert {r.exercise for r in grade.results} == {exercise}, grade.results
    for r in grade.results:
        assert "please tell your teacher" not in r.feedback, (r.check_id, r.feedback)
        # A generated file that does not even import would score 0 for nothing.
        assert "importing the file failed" not in r.feedback and "syntax error" not in r.feedback, (r.check_id, r.feedback)
    return grade


def check_name(result) -> str:
    return result.check_id + (" [hidden]" if result.hidden else "")


@pytest.mark.parametrize("exercise, targets, kind", CASES)
def test_degenerate_scores_zero(exercise, targets, kind, graded):
    grade = grade_generated(graded, exercise, targets, kind)
    earned = [r for r in grade.results if r.passed or r.points > 0]
    got, most = grade.exercise_points(exercise)
    report = "\n".join(f"- {check_name(r)}: {r.points:g}/{r.max_points:g} points\n{r.feedback}".rstrip() for r in earned)
    assert got == 0 and not earned, f"{', '.join(targets)} returning {kind} scores {got:g}/{most:g} on {exercise}; checks passed:\n{report}"


@pytest.mark.parametrize("exercise", list(TARGETS))
def test_control_scores_full_marks(exercise, graded):
    grade = grade_generated(graded, exercise, TARGETS[exercise], CONTROL)
    failed = {check_name(r): r.feedback for r in grade.results if not r.passed}
    assert not failed, "the generated control file fails:\n" + "\n".join(f"{k}:\n{v}" for k, v in failed.items())
    got, most = grade.exercise_points(exercise)
    assert grade.results and got == most > 0


def test_catalogue_covers_every_target():
    """Every public function and class of every solution is a target (its
    row's ``defines`` in grader/exercises.py), and nothing else is; every
    method a row names besides forward is a method of a class it defines."""
    assert coverage_problems() == []
