"""``grade``'s options, in one place: the command line adds them to its
parser (``grader.cli``), and reads them into a ``GradeRequest``
(``request.GradeRequest.from_namespace``), which is what every way of
grading hands on; the teacher's commands take the help texts of the options
they share.
"""

import argparse

SEED_HELP = "draw the checks' inputs with this number (0: as written in the checks); by default a fresh secret where the solutions are (a teacher's grading), 0 without them (your own run)"
SANDBOX_HELP = "run submission code in a bubblewrap sandbox: auto (if available), require, off"


def add_to(g: argparse.ArgumentParser) -> None:
    """``grade``'s arguments, added to ``g``."""
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
