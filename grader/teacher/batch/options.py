"""What ``python -m grader batch`` is asked to do, as one typed object.

``BatchOptions.from_namespace`` builds it once from argparse's namespace
(the command line's defaults are the ones here: a test checks that they
agree); a test or another program builds one directly. A value batch cannot
use is a ``BatchOptionError`` when the object is built, with the bilingual
message the teacher reads; whether the files the options name exist is for
the batch to find out.
"""
import dataclasses
import os
from dataclasses import dataclass

SANDBOX_CHOICES = ("auto", "require", "off")


class BatchOptionError(ValueError):
    """An option batch cannot use: its message is what the teacher reads."""


@dataclass(frozen=True)
class BatchOptions:
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

    def __post_init__(self):
        for name in ("dir", "out", "db", "policy", "worksheet"):
            self._check_path(name, required=name in ("dir", "out"))
        if not isinstance(self.assignment, str) or not self.assignment:
            raise BatchOptionError(f"--assignment 应为名字 / --assignment must be a name (got {self.assignment!r})")
        for name in ("force", "no_report"):
            if not isinstance(getattr(self, name), bool):
                raise BatchOptionError(f"{name} 应为 True 或 False / {name} must be True or False (got {getattr(self, name)!r})")
        for name in ("jobs", "inputs_seed"):
            self._check_whole_number(name)
        if self.jobs is not None and self.jobs < 1:
            raise BatchOptionError(f"--jobs 至少为 1 / --jobs must be at least 1 (got {self.jobs})")
        self._check_threshold()
        if self.sandbox not in SANDBOX_CHOICES:
            raise BatchOptionError(f"--sandbox 应为 {', '.join(SANDBOX_CHOICES)} 之一 / --sandbox must be one of {', '.join(SANDBOX_CHOICES)} (got {self.sandbox!r})")

    def _check_path(self, name: str, required: bool) -> None:
        value = getattr(self, name)
        if isinstance(value, os.PathLike):  # a pathlib.Path from a test or a program: kept as text
            value = os.fspath(value)
            object.__setattr__(self, name, value)
        if value is None and not required:
            return
        if not isinstance(value, str) or not value:
            flag = name if required else f"--{name}"
            raise BatchOptionError(f"{flag} 应为路径 / {flag} must be a path (got {value!r})")

    def _check_whole_number(self, name: str) -> None:
        value, flag = getattr(self, name), "--" + name.replace("_", "-")
        # bool is an int to Python, but never a count or a seed.
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise BatchOptionError(f"{flag} 应为整数 / {flag} must be a whole number (got {value!r})")

    def _check_threshold(self) -> None:
        t = self.threshold
        if t is None:
            return
        if not isinstance(t, (int, float)) or isinstance(t, bool):
            raise BatchOptionError(f"--threshold 应为 0 到 1 之间的数 / --threshold must be a number between 0 and 1 (got {t!r})")
        if not 0 <= t <= 1:
            raise BatchOptionError(f"--threshold 应在 0 到 1 之间 / --threshold must be between 0 and 1 (got {t:g})")

    @classmethod
    def from_namespace(cls, namespace) -> "BatchOptions":
        """The options in argparse's namespace (or any object with them as
        attributes; others, such as the command's name, are passed over). A
        missing option with no default is a ``BatchOptionError``."""
        given = vars(namespace)
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in given:
                values[f.name] = given[f.name]
            elif f.default is dataclasses.MISSING:
                raise BatchOptionError(f"缺少选项 / missing option: {f.name}")
        return cls(**values)
