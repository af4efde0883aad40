"""``python -m grader``: the command line."""
import argparse
import os
import sys

from grader.exercises import IDS


SEED_HELP = (
    "draw the checks' inputs with this number (0: as written in the checks); by default a fresh secret "
    "where the solutions are (a teacher's grading), 0 without them (your own run)"
)
SANDBOX_HELP = "run submission code in a bubblewrap sandbox: auto (if available), require, off"


def _parser(prog: str = "python -m grader") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="注意力练习评分 / grader for the self-attention exercises",
    )
    verbs = p.add_subparsers(dest="verb", metavar="COMMAND")
    verbs.required = True
    g = verbs.add_parser("grade", help="grade one submission folder / 给一份作业评分")
    g.add_argument("path", nargs="?", default="exercises", help="folder with ex0_weighted_sum.py ... (default: exercises)")
    g.add_argument("--only", metavar="EX", help="grade one exercise, e.g. ex4_masking")
    g.add_argument("--json", metavar="FILE", help="also write Gradescope results.json here")
    g.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto", help=SANDBOX_HELP)
    g.add_argument("--inputs-seed", type=int, default=None, metavar="N", help=SEED_HELP)
    g.add_argument(
        "--public-only",
        action="store_true",
        help="only the public checks, as a student's copy has them (an nbgrader notebook's Validate)",
    )
    g.add_argument(
        "--watch",
        action="store_true",
        help="stay open and grade an exercise again each time its file is saved (Ctrl-C ends) / 每次保存就重新评分",
    )
    g.add_argument(
        "--exit-code",
        action="store_true",
        help="exit with 1 when a check did not pass (tox -e grade: tox says FAIL, not congratulations, until every check passes)",
    )
    # How the report names the folder, when not as given (grader.notebook's check: the folder's own name).
    g.add_argument("--display-name", default=None, help=argparse.SUPPRESS)

    teacher = _teacher_verbs()
    if teacher is not None:
        teacher.add(verbs, SANDBOX_HELP, SEED_HELP)
    return p


def _teacher_verbs():
    """``grader.teacher.verbs``; None in the student edition, which is
    ``grader/`` without ``teacher/``. The one place outside ``teacher/``
    that imports it (tests/test_import_rules.py holds everything else to
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
    return _teacher_verbs().run(args)


def grade_usage_problem(args) -> str | None:
    """What is wrong with ``grade``'s arguments, or None (the warm grader asks too)."""
    if args.only and args.only not in IDS:
        close = [ex for ex in IDS if args.only in ex]
        hint = f"（是不是 / did you mean {close[0]}?）" if close else ""
        return f"没有这道练习 / no exercise {args.only!r}{hint}; 可选 / choose from: {', '.join(IDS)}"
    if not os.path.isdir(args.path):
        return f"找不到文件夹 / no such folder: {args.path}"
    return None


def _grade(parser, args) -> int:
    problem = grade_usage_problem(args)
    if problem is not None:
        return _usage_error(parser, problem)
    if args.watch:
        from grader.engine import watch

        return watch.main(args)
    from grader.engine.grade_command import grade_folder
    from grader.engine.grading import Grader
    from grader.engine.sandbox import SandboxUnavailable

    try:
        grader = Grader(sandbox=args.sandbox, inputs_seed=args.inputs_seed)
    except SandboxUnavailable as exc:
        return _usage_error(parser, str(exc))
    try:
        said = grade_folder(grader, args)
    except KeyboardInterrupt:
        print("已中断 / interrupted", file=sys.stderr)
        return 130
    finally:
        grader.close()
    sys.stderr.write(said.stderr)
    sys.stdout.write(said.stdout)
    if said.code == 0 and args.exit_code and not said.passed:
        return 1  # graded, not all passed: as a test runner says it
    return said.code


def script() -> None:
    """``attention-grader``, the console script of the student edition's wheel
    (``grader/teacher/student_wheel.py``): ``python -m grader`` by the name
    it was run as."""
    leave(main(prog=os.path.basename(sys.argv[0]) or "attention-grader"))


def leave(code: int) -> None:
    """Exit with ``code`` without tearing the interpreter down: with torch
    loaded that takes a noticeable part of a second, and everything that
    matters is written already."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
