"""``python -m grader``: the command line."""
import argparse
import importlib.util
import os
import sys

from grader.exercises import IDS


SEED_HELP = (
    "draw the checks' inputs with this number (0: as written in the checks); by default a fresh secret "
    "where the solutions are (a teacher's grading), 0 without them (your own run)"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader",
        description="注意力练习评分 / grader for the self-attention exercises",
    )
    verbs = p.add_subparsers(dest="verb", metavar="COMMAND")
    verbs.required = True
    g = verbs.add_parser("grade", help="grade one submission folder / 给一份作业评分")
    g.add_argument("path", nargs="?", default="exercises", help="folder with ex0_weighted_sum.py ... (default: exercises)")
    g.add_argument("--only", metavar="EX", help="grade one exercise, e.g. ex4_masking")
    g.add_argument("--json", metavar="FILE", help="also write Gradescope results.json here")
    g.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto", help="run submission code in a bubblewrap sandbox: auto (if available), require, off")
    g.add_argument("--inputs-seed", type=int, default=None, metavar="N", help=SEED_HELP)

    # The teacher's verbs are offered only where their module is (the student
    # edition has none of them).
    if _have("batch"):
        b = verbs.add_parser("batch", help="grade a folder of submissions into a gradebook / 批量评分")
        b.add_argument("dir", metavar="DIR", help="one submission per student: DIR/<id>/, DIR/<id>.zip or DIR/<id>/<assignment>/")
        b.add_argument("--out", required=True, metavar="OUT", help="where grades.csv, gradebook.db and per-student results go")
        b.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel graders (default: all cores)")
        b.add_argument("--assignment", default="attention", metavar="NAME", help="assignment name in the gradebook (default: attention)")
        b.add_argument("--force", action="store_true", help="regrade students already graded in OUT")
        b.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto", help="run submission code in a bubblewrap sandbox: auto (if available), require, off")
        b.add_argument("--inputs-seed", type=int, default=None, metavar="N", help=SEED_HELP)
        b.add_argument("--no-report", action="store_true", help="write no class report (report.html, report.md) and run no similarity check")
        b.add_argument("--threshold", type=float, default=None, metavar="T", help="similarity check: show pairs scoring at least T (0 to 1; default: the similar verb's)")

    if _have("class_report"):
        c = verbs.add_parser("report", help="rebuild OUT/report.html and OUT/report.md from a batch's OUT, without regrading / 班级报告")
        c.add_argument("out", metavar="OUT", help="the folder `batch --out` wrote (with grades.csv)")

    if _have("release"):
        r = verbs.add_parser("release", help="build the student edition (no solutions, no hidden checks) / 学生版")
        r.add_argument("--out", required=True, metavar="DIR", help="folder to create; DIR.zip is written beside it")

    if _have("gradescope"):
        s = verbs.add_parser("gradescope", help="build a Gradescope autograder bundle")
        s.add_argument("--out", default="autograder.zip", metavar="FILE", help="the zip to write (default: autograder.zip)")

    if _have("similar"):
        from grader.similar import THRESHOLD, TOP

        m = verbs.add_parser("similar", help="find submissions that are suspiciously alike / 相似的提交")
        m.add_argument("dir", metavar="DIR", help="one submission per student, as for batch")
        m.add_argument("--out", required=True, metavar="OUT", help="where similar.json and similar.html go (not inside DIR)")
        m.add_argument("--threshold", type=float, default=THRESHOLD, metavar="X", help=f"show pairs scoring at least X, 0..1 (default: {THRESHOLD})")
        m.add_argument("--top", type=int, default=TOP, metavar="N", help=f"show at most N pairs (default: {TOP})")
        m.add_argument("--assignment", default="attention", metavar="NAME", help="in nbgrader's layout DIR/<id>/NAME/, the folder to read (default: attention)")
    return p


def _have(verb: str) -> bool:
    return importlib.util.find_spec(f"grader.{verb}") is not None


def _usage_error(parser, message: str) -> int:
    parser.print_usage(sys.stderr)
    print(f"python -m grader: 错误 / error: {message}", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.verb == "grade":
        return _grade(parser, args)
    # Each teacher's verb lives in its own module, imported only when used.
    if args.verb == "batch":
        from grader import batch as verb
    elif args.verb == "report":
        from grader import class_report as verb
    elif args.verb == "release":
        from grader import release as verb
    elif args.verb == "similar":
        from grader import similar as verb
    else:
        from grader import gradescope as verb
    return verb.run(args)


def _grade(parser, args) -> int:
    if args.only and args.only not in IDS:
        close = [ex for ex in IDS if args.only in ex]
        hint = f"（是不是 / did you mean {close[0]}?）" if close else ""
        return _usage_error(parser, f"没有这道练习 / no exercise {args.only!r}{hint}; 可选 / choose from: {', '.join(IDS)}")
    if not os.path.isdir(args.path):
        return _usage_error(parser, f"找不到文件夹 / no such folder: {args.path}")
    from grader import report
    from grader.grading import Grader
    from grader.sandbox import SandboxUnavailable
    from grader.text import visible

    try:
        grader = Grader(sandbox=args.sandbox, inputs_seed=args.inputs_seed)
    except SandboxUnavailable as exc:
        return _usage_error(parser, str(exc))
    try:
        # The title names the folder: a student's folder name, if the shell expanded a pattern.
        grade = grader.grade(os.path.abspath(args.path), only=args.only, display_root=visible(args.path, name=True))
    except KeyboardInterrupt:
        print("已中断 / interrupted", file=sys.stderr)
        return 130
    finally:
        grader.close()
    if grade.unconfined and not grader.quiet:
        from grader.grading import unconfined_note

        print(unconfined_note(grade.unconfined), file=sys.stderr)
    sys.stdout.write(report.terminal(grade))
    if args.json:
        report.write_json(grade, args.json)
    return 3 if grade.errors else 0
