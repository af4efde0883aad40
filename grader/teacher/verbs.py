"""The teacher's commands of ``python -m grader``: batch, report, release,
gradescope, prairielearn, similar, notebooks, nbgrader, export.

``grader.cli`` adds them where this folder is; the student edition is
``grader/`` without ``teacher/``, so its command line has ``grade`` only.
Each command's module is imported only when the command runs: ``--help``
stays fast, and ``batch`` never loads what ``similar`` needs.
"""

import importlib

from grader.teacher.edition.course_notebooks import DOCS_URL
from grader.teacher.report.similar import THRESHOLD, TOP

# command -> the module whose run(args) carries it out: it makes the
# command's options once from argparse's namespace (a frozen dataclass on
# grader.teacher.options.CommandOptions, beside the command's work; a bad
# value is a usage error, exit 2) and hands them to the work
MODULES = {
    "batch": "grader.teacher.batch.command",
    "report": "grader.teacher.report.class_report",
    "release": "grader.teacher.edition.release",
    "gradescope": "grader.teacher.platforms.gradescope",
    "prairielearn": "grader.teacher.platforms.prairielearn",
    "similar": "grader.teacher.report.similar",
    "notebooks": "grader.teacher.edition.course_notebooks",
    "nbgrader": "grader.teacher.platforms.nbgrader_course",
    "export": "grader.teacher.platforms.lms_export",
}


def add(verbs, sandbox_help: str, seed_help: str) -> None:
    """Add the teacher's commands to ``python -m grader``'s subparsers."""
    b = verbs.add_parser("batch", help="grade a folder of submissions into a gradebook / 批量评分")
    b.add_argument(
        "dir",
        metavar="DIR",
        help="one submission per student (DIR/<id>/, DIR/<id>.zip or nbgrader's DIR/<id>/<assignment>/), or a Canvas or Moodle download of all submissions (its folder or zip)",
    )
    b.add_argument("--out", required=True, metavar="OUT", help="where grades.csv, gradebook.db and per-student results go")
    b.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel graders (default: one per core, at most one per 8 students)")
    b.add_argument("--assignment", default="attention", metavar="NAME", help="assignment name in the gradebook (default: attention)")
    b.add_argument(
        "--db",
        metavar="URL",
        help="add the grades to this existing nbgrader gradebook (an SQLite file, or an SQLAlchemy URL such as "
        "postgresql+psycopg://user@host/db) instead of writing OUT/gradebook.db; its other assignments are left as they are",
    )
    b.add_argument("--force", action="store_true", help="regrade students already graded in OUT")
    b.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto", help=sandbox_help)
    b.add_argument("--inputs-seed", type=int, default=None, metavar="N", help=seed_help)
    b.add_argument("--no-report", action="store_true", help="write no class report (report.html, report.md) and run no similarity check")
    b.add_argument("--threshold", type=float, default=None, metavar="T", help="similarity check: show pairs scoring at least T (0 to 1; default: the similar verb's)")
    b.add_argument("--policy", metavar="TOML", help="the course's late policy: deadline, penalty per started day late, cap, grace days, extensions, times")
    b.add_argument("--worksheet", metavar="CSV", help='Moodle\'s grading worksheet: its "Last modified (submission)" gives the submission times (with --policy)')

    x = verbs.add_parser("export", help="put a batch's grades into a Canvas gradebook CSV or a Moodle grading worksheet / 导出成绩")
    x.add_argument("platform", choices=("canvas", "moodle"), help="the learning platform")
    x.add_argument("out", metavar="OUT", help="the folder `batch --out` wrote (with grades.csv)")
    x.add_argument("--gradebook", metavar="CSV", help="canvas: the gradebook CSV exported from Canvas (Grades > Export)")
    x.add_argument("--column", metavar="NAME", help='canvas: the assignment\'s column, as its header says: "<assignment> (<id>)" (or the title alone, when one column has it)')
    x.add_argument("--worksheet", metavar="CSV", help="moodle: the grading worksheet downloaded from the assignment")
    x.add_argument("--to", required=True, metavar="CSV", help="the file to write, for the platform's import")
    x.add_argument("--allow-unmatched", action="store_true", help="write the file even when some students could not be matched")

    c = verbs.add_parser("report", help="rebuild OUT/report.html and OUT/report.md from a batch's OUT, without regrading / 班级报告")
    c.add_argument("out", metavar="OUT", help="the folder `batch --out` wrote (with grades.csv)")

    r = verbs.add_parser("release", help="build the student edition (no solutions, no hidden checks) / 学生版")
    r.add_argument("--out", required=True, metavar="DIR", help="folder to create; DIR.zip is written beside it")
    r.add_argument(
        "--docs-url",
        default=None,
        metavar="URL",
        help="where the course site is published (https://...), for the README's and the notebooks' links to its pages "
        "(default: none; the release holds no docs/, so they name the pages without a link)",
    )
    r.add_argument(
        "--github-classroom",
        action="store_true",
        help="add .github/workflows/classroom.yml: GitHub Classroom's autograding of the public checks on each push, one test per check with its points",
    )

    s = verbs.add_parser("gradescope", help="build a Gradescope autograder bundle")
    s.add_argument("--out", default="autograder.zip", metavar="FILE", help="the zip to write (default: autograder.zip)")

    p = verbs.add_parser("prairielearn", help="write the unit as PrairieLearn questions with an external grader / PrairieLearn 课程")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write (new or empty): questions/, serverFilesCourse/, image/")
    p.add_argument(
        "--image",
        default="attention-grader",
        metavar="IMAGE",
        help="the grading image's name in info.json, as you push it to Docker Hub, e.g. yourname/attention-grader (default: attention-grader)",
    )
    p.add_argument(
        "--docs-url",
        default=None,
        metavar="URL",
        help="where the course site is published (https://...), for each question's link to its page (default: no link)",
    )

    m = verbs.add_parser("similar", help="find submissions that are suspiciously alike / 相似的提交")
    m.add_argument("dir", metavar="DIR", help="one submission per student, as for batch")
    m.add_argument("--out", required=True, metavar="OUT", help="where similar.json and similar.html go (not inside DIR)")
    m.add_argument("--threshold", type=float, default=THRESHOLD, metavar="X", help=f"show pairs scoring at least X, 0..1 (default: {THRESHOLD})")
    m.add_argument("--top", type=int, default=TOP, metavar="N", help=f"show at most N pairs (default: {TOP})")
    m.add_argument("--assignment", default="attention", metavar="NAME", help="in nbgrader's layout DIR/<id>/NAME/, the folder to read (default: attention)")

    n = verbs.add_parser("notebooks", help="write notebooks/<id>.ipynb from the docs pages, stubs and experiments / 生成笔记本")
    n.add_argument("--check", action="store_true", help="only check that notebooks/ is up to date (exit 1 if not)")

    g = verbs.add_parser("nbgrader", help="write the unit as an nbgrader course folder (source notebooks, nbgrader_config.py) / nbgrader 课程")
    g.add_argument("--out", required=True, metavar="COURSE", help="the course folder to write (nbgrader's CourseDirectory.root)")
    g.add_argument("--assignment", default="attention", metavar="NAME", help="the assignment's name (default: attention)")
    g.add_argument(
        "--docs-url",
        default=DOCS_URL,
        metavar="URL",
        help="where the course site is published, for the notebooks' links (default: docs/ beside the assignment's folder)",
    )


def run(args) -> int:
    return importlib.import_module(MODULES[args.verb]).run(args)
