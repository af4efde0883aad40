"""``python -m grader``: the command line."""

import argparse
import os
import sys

from grader.student import grade_options


def _parser(prog: str = "python -m grader") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="注意力练习评分 / grader for the self-attention exercises",
    )
    verbs = p.add_subparsers(dest="verb", metavar="COMMAND")
    verbs.required = True
    g = verbs.add_parser("grade", help="grade one submission folder / 给一份作业评分")
    grade_options.add_to(g)
    s = verbs.add_parser(
        "start",
        help="put the exercises and their notebooks in a folder to work in / 把练习和笔记本放进一个文件夹",
        description="writes DIR/exercises/<id>.py and DIR/notebooks/<id>.ipynb; never over a file that is there",
    )
    s.add_argument("dir", metavar="DIR", help="the folder (made if missing) / 文件夹（没有就新建）")

    teacher = _teacher_verbs()
    if teacher is not None:
        teacher.add(verbs, grade_options.SANDBOX_HELP, grade_options.SEED_HELP)
    return p


def _teacher_verbs():
    """``grader.teacher.verbs``; None in the student edition, which is
    ``grader/`` without ``teacher/``. The one place outside ``teacher/``
    that imports it (tests/unit/test_import_rules.py holds everything else to
    that)."""
    try:
        from grader.teacher import verbs
    except ModuleNotFoundError as exc:
        if exc.name != "grader.teacher":
            raise
        return None
    return verbs


def _usage_error(parser, message: str) -> int:
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: 错误 / error: {message}", file=sys.stderr)
    return 2


def main(argv=None, prog: str = "python -m grader") -> int:
    """The command line, named ``prog`` in its usage and its errors."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    # Read by the limits of every grader this command makes: a bad value is
    # a usage error here, before anything is graded, not a traceback later.
    from grader.child.limits import time_scale

    try:
        time_scale()
    except ValueError as exc:
        return _usage_error(parser, str(exc))
    if args.verb == "grade":
        return _grade(parser, args)
    if args.verb == "start":
        from grader.student import start

        return start.main(args.dir, parser.prog)
    return _teacher_verbs().run(args)


def _grade(parser, args) -> int:
    from grader.student.request import BadRequest, GradeRequest

    try:
        request = GradeRequest.from_namespace(args)
    except BadRequest as exc:
        return _usage_error(parser, str(exc))
    problem = request.problem()
    if problem is not None:
        return _usage_error(parser, problem)
    if args.watch:
        from grader.student import watch

        return watch.main(request)
    from grader.engine.grading import Grader
    from grader.engine.sandbox import SandboxUnavailable
    from grader.student.grade_command import ctrl_c_once, grade_folder

    try:
        grader = Grader(sandbox=request.sandbox, inputs_seed=request.inputs_seed)
    except SandboxUnavailable as exc:
        return _usage_error(parser, str(exc))
    with ctrl_c_once():
        try:
            graded = grade_folder(grader, request)
        except KeyboardInterrupt:
            print("已中断 / interrupted", file=sys.stderr)
            return 130
        finally:
            grader.close()
    sys.stderr.write(graded.notes)
    sys.stdout.write(graded.report)
    if graded.code == 0 and args.exit_code and not graded.passed:
        return 1  # graded, not all passed: as a test runner says it
    return graded.code


def script() -> None:
    """``attention-grader``, the console script of the student edition's wheel
    (``grader/teacher/edition/student_wheel.py``): ``python -m grader`` by the name
    it was run as."""
    leave(main(prog=os.path.basename(sys.argv[0]) or "attention-grader"))


def leave(code: int) -> None:
    """Exit with ``code`` without tearing the interpreter down: with torch
    loaded that takes a noticeable part of a second, and everything that
    matters is written already."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
