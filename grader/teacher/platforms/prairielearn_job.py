"""PrairieLearn: grade one external grading job, inside the grading container.

PrairieLearn lays a job out under ``/grade`` (its docs/externalGrading.md,
"The Grading Process"; apps/prairielearn/src/lib/externalGraderCommon.ts,
``buildDirectory``): ``student/`` the submitted files, ``tests/`` the
question's tests folder, ``serverFilesCourse/`` (and its deprecated copy
``shared/``) what the question's ``serverFilesCourse`` list names, ``data/``
the question's data. It reads ``/grade/results/results.json`` once the
entrypoint exits with status 0 (apps/grader-host/src/index.ts), up to 1 MB.

``run_grader`` (written by ``grader.teacher.platforms.prairielearn``) calls
``python -m grader.teacher.platforms.prairielearn_job ROOT EXERCISE``, which grades the
exercise file of ``ROOT/student`` with every check of that exercise and writes
``ROOT/results/results.json`` in PrairieLearn's format:

- ``score`` 0 to 1 (the exercise's points over its maximum), ``gradable``;
- ``tests``: one per check, with ``name``, ``points``, ``max_points``,
  ``message`` and ``output``, the fields ``<pl-external-grader-results>``
  shows (apps/prairielearn/elements/pl-external-grader-results). PrairieLearn
  shows results at once and has no hidden tests: a hidden check keeps its
  name, points and the mistake it named, not its feedback, which quotes its
  inputs (``report.without_hidden_inputs``, as nbgrader's feedback);
- a file that cannot be read or compiled (missing, not UTF-8, a syntax
  error) is ``gradable: false`` with ``format_errors``: PrairieLearn then
  neither gives nor takes points, and the student keeps the attempt.

What it prints (the full report, hidden checks included) goes to
PrairieLearn's log of the job, which staff see and students do not.
"""

import json
import os
import sys
import traceback

from grader import __version__
from grader.exercises import BY_ID

MAX_BYTES = 1000 * 1000  # PrairieLearn refuses results.json over 1 MiB (grader-host's index.ts): keep a margin
CUT = "\n…（太长，已截断 / too long, cut here）"


def results(grade, exercise: str, where: str = "") -> dict:
    """PrairieLearn's results.json for ``grade``'s ``exercise``."""
    from grader.student import report

    got, most = grade.exercise_points(exercise)
    shown = report.without_hidden_inputs(grade)
    tests = []
    for r in shown.results:
        if r.exercise != exercise:
            continue
        tests.append(
            {
                "name": ("隐藏 / hidden: " if r.hidden else "") + r.name,
                "points": r.points,
                "max_points": r.max_points,
                "message": "通过 / passed" if r.passed else "没通过 / failed",
                "output": "" if r.passed else r.feedback,
                "extra_data": report.check_data(r),
            }
        )
    e = BY_ID[exercise]
    lines = [f"{exercise} {e.zh} / {e.en}: {got:g} / {most:g}"]
    if where:
        lines.append(f"评分的文件 / graded file: {where}")
    notes = report.notes_text(grade)
    if notes:
        lines.append(notes)
    if grade.errors:
        # The details (which may quote hidden checks) go to the teacher only.
        lines.append("评分程序出了问题，部分检查没有运行；老师能看到详细情况。")
        lines.append("The grader had a problem and some checks did not run; your teacher can see the details.")
    out = {
        "gradable": True,
        "score": got / most if most else 0.0,
        "message": "\n".join(lines),
        "tests": tests,
        "extra_data": report.results_json(grade)["extra_data"],
    }
    return fit(out)


def ungradable(*errors: str) -> dict:
    """Not gradable: PrairieLearn shows ``format_errors`` and counts no attempt."""
    from grader.student.report import UNGRADABLE

    return {"gradable": False, "format_errors": list(errors), "message": UNGRADABLE, "extra_data": {"grader_version": __version__}}


def fit(data: dict, limit: int = MAX_BYTES) -> dict:
    """``data`` with its longest test outputs cut until its JSON is under ``limit`` bytes."""
    while len(json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")) > limit:  # as report.write_results writes it
        longest = max(data["tests"], key=lambda t: len(t["output"]), default=None)
        if longest is None or len(longest["output"]) <= len(CUT):
            data["message"] = data["message"][: limit // 4] + CUT
            data["tests"] = []
            break
        longest["output"] = longest["output"][: len(longest["output"]) // 2] + CUT
    return data


def read(folder: str, exercise: str, display: str):
    """The exercise's file in ``folder`` as the grader reads it
    (``submission.ExerciseFile``), and why it cannot be graded at all (one
    line per language), or nothing. It is compiled, never run."""
    import ast

    from grader.handin import submission

    f = submission.load(folder, display_root=display).files[exercise]
    if f.problem is not None:
        return f, [f.problem.zh, f.problem.en]
    assert f.source is not None  # read, since no problem was found
    try:
        compile(f.source.decode("utf-8"), f.display_name, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        place = f.where(exc.lineno or 1)
        return f, [f"语法错误：{place.zh}（{exc.msg}）", f"syntax error in {place.en} ({exc.msg})"]
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; nesting too deep for the compiler
        name = type(exc).__name__
        return f, [f"Python 无法编译 {f.display_name}（{name}）", f"Python cannot compile {f.display_name} ({name})"]
    return f, []


def autograde(root: str, exercise: str, grader=None) -> int:
    """Grade ``exercise`` in ``root/student`` into ``root/results/results.json``
    (with ``grader``, a ``Grader`` of the caller's, else one of its own).
    Returns 0 once results.json is written, whatever the score."""
    student = os.path.join(root, "student")
    path = os.path.join(root, "results", "results.json")
    try:
        from grader.student import report
        from grader.teacher.platforms.gradescope import find_submission, received
        from grader.text import visible

        if exercise not in BY_ID:
            raise ValueError(f"no exercise {exercise!r}: run_grader takes one of {', '.join(BY_ID)}")
        folder, _ = find_submission(student)  # the files themselves, or a folder that holds them
        folder = folder or student
        rel = os.path.relpath(folder, student)
        display = "" if rel == "." else visible(rel, name=True)  # a folder name the student chose
        f, problems = read(folder, exercise, display)
        if problems:
            print("not gradable:", *problems, sep="\n  ", flush=True)
            report.write_results(path, ungradable(*problems, f"收到 / received: {received(student)}"))
            return 0
        from grader.engine.grading import Grader

        own = grader is None
        grader = grader or Grader()
        try:
            grade = grader.grade(folder, only=exercise, display_root=display)
        finally:
            if own:
                grader.close()
        sys.stdout.write(report.terminal(grade, title=f"PrairieLearn: {exercise}"))
        report.write_results(path, results(grade, exercise, where=f.display_name))
        return 0
    except BaseException:  # noqa: BLE001 - whatever happened, PrairieLearn gets a results.json
        traceback.print_exc()
        try:
            from grader.student import report

            report.write_results(
                path,
                ungradable(
                    "评分程序出错，这次提交没有评分，也不算一次尝试；老师能看到详细情况。",
                    "The grader failed on this submission: it is not graded and costs no attempt; your teacher can see the details.",
                ),
            )
        except BaseException:  # noqa: BLE001 - whatever ended the grading, PrairieLearn gets an exit code and the traceback in its log
            traceback.print_exc()
            return 1
        return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m grader.teacher.platforms.prairielearn_job GRADE_ROOT EXERCISE", file=sys.stderr)
        return 2
    return autograde(argv[0], argv[1])


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # as grader/__main__.py: no interpreter teardown once the results are written
