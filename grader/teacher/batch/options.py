"""What ``python -m grader batch`` is asked to do, as one typed object.

``BatchOptions.from_namespace`` builds it once from argparse's namespace
(the command line's defaults are the ones here: a test checks that they
agree); a test or another program builds one directly. A value batch cannot
use is a ``BatchOptionError`` when the object is built, with the bilingual
message the teacher reads; whether the files the options name exist is for
the batch to find out. The checks and ``from_namespace`` are every teacher's
command's (``grader.teacher.options``).
"""

from dataclasses import dataclass

from grader.teacher.options import CommandOptions, OptionError

SANDBOX_CHOICES = ("auto", "require", "off")

# An option batch cannot use: its message is what the teacher reads (every
# teacher's command has the same error, grader.teacher.options's).
BatchOptionError = OptionError


@dataclass(frozen=True)
class BatchOptions(CommandOptions):
    dir: str  # the class: a folder or zip, one submission per student (or a platform's download)
    out: str  # where grades.csv, the gradebook and each student's files go
    jobs: int | None = None  # parallel graders; None: one per core, at most one per 8 students (batch.workers_for)
    assignment: str = "attention"  # the gradebook's assignment, and nbgrader's folder in DIR/<id>/<assignment>/
    db: str | None = None  # an existing nbgrader gradebook (a file or an SQLAlchemy URL); None: OUT/gradebook.db
    force: bool = False  # regrade students already graded in OUT
    sandbox: str = "auto"  # one of SANDBOX_CHOICES
    inputs_seed: int | None = None  # the hidden inputs' secret; None: a fresh one for this batch
    no_report: bool = False  # no class report and no similarity check
    threshold: float | None = None  # the similarity check's; None: the similar command's default
    policy: str | None = None  # the course's late policy (course.toml)
    worksheet: str | None = None  # Moodle's grading worksheet: submission times for the policy

    def __post_init__(self) -> None:
        self._check_paths("dir", "out", "db", "policy", "worksheet")
        self._check_names("assignment")
        self._check_flags("force", "no_report")
        self._check_whole_number("jobs", least=1)
        self._check_whole_number("inputs_seed")
        self._check_fraction("threshold")
        self._check_choice("sandbox", SANDBOX_CHOICES)
