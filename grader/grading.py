"""Grading one submission: collect the checks with pytest, answer them from a
child process per exercise, and return the results.

``start()`` must run before anything a submission must not see is imported:
it forks the zygote that children are made from.
"""
import contextlib
import io
import os
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass, field

from grader.exercises import IDS
from grader.limits import Limits

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = os.path.join(PROJECT, "checks")
SOLUTIONS = os.path.join(PROJECT, "solutions")


@dataclass
class Grade:
    submission: str
    results: list = field(default_factory=list)  # plugin.CheckResult, in exercise order
    seconds: float = 0.0
    outputs: dict = field(default_factory=dict)  # exercise id -> what its code printed
    errors: list = field(default_factory=list)  # problems of the grader itself

    def exercise_points(self, exercise: str) -> tuple[float, float]:
        rs = [r for r in self.results if r.exercise == exercise]
        return sum(r.points for r in rs), sum(r.max_points for r in rs)

    @property
    def score(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.max_points for r in self.results)


class Grader:
    """One grader process: a zygote, then any number of submissions."""

    def __init__(self, limits: Limits | None = None, checks_dir: str = CHECKS, solutions_dir: str = SOLUTIONS):
        import torch  # noqa: F401 - imported once here, inherited by every child

        from grader import limits as limits_mod
        from grader.zygote import Zygote

        limits_mod.become_subreaper()
        self.zygote = Zygote.fork()
        self.limits = limits or Limits()
        self.checks_dir, self.solutions_dir = checks_dir, solutions_dir

    def check_dirs(self) -> list[str]:
        return [d for d in (os.path.join(self.checks_dir, "public"), os.path.join(self.checks_dir, "hidden")) if os.path.isdir(d)]

    def grade(self, path: str, only: str | None = None, display_root: str | None = None) -> Grade:
        import pytest
        import torch

        from grader import submission as submission_mod
        from grader.endpoints import ReferenceEndpoint, SubmissionEndpoint, Zygotes
        from grader.plugin import GradingPlugin

        start = time.monotonic()
        torch.set_num_threads(1)  # tiny tensors: threads cost more than they give
        sub = submission_mod.load(path, display_root)
        workdir = tempfile.mkdtemp(prefix="attention-grader-")
        zygotes = Zygotes(self.zygote)
        plugin = GradingPlugin(
            make_sub=lambda ex: SubmissionEndpoint(sub.files[ex], zygotes, self.limits, workdir, sub),
            make_ref=lambda ex: ReferenceEndpoint(ex, os.path.join(self.solutions_dir, ex + ".py")),
            only=only,
        )
        args = self.check_dirs() + [
            "-q",
            "-p", "no:cacheprovider",
            "-p", "no:randomly",
            "--import-mode=importlib",
            "-c", os.path.join(self.checks_dir, "pytest.ini"),
            "--rootdir", self.checks_dir,
        ]
        grade = Grade(display_root or path)
        log = io.StringIO()
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                warnings.simplefilter("ignore")
                code = pytest.main(args, plugins=[plugin])
        finally:
            plugin.close()
            self.zygote = zygotes.current
            shutil.rmtree(workdir, ignore_errors=True)
        if plugin.collect_errors or code not in (0, 1):
            grade.errors.append(f"pytest exit code {code}\n" + "\n".join(plugin.collect_errors) + log.getvalue()[-4000:])
        order = {ex: i for i, ex in enumerate(IDS)}
        grade.results = sorted(plugin.results, key=lambda r: order[r.exercise])
        grade.outputs = dict(plugin.outputs)
        grade.seconds = time.monotonic() - start
        return grade

    def close(self) -> None:
        self.zygote.close()
