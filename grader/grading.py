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
HIDDEN_POINTS_FILE = "hidden_points.json"


@dataclass
class Grade:
    submission: str
    results: list = field(default_factory=list)  # plugin.CheckResult, in exercise order
    seconds: float = 0.0
    outputs: dict = field(default_factory=dict)  # exercise id -> what its code printed
    errors: list = field(default_factory=list)  # problems of the grader itself
    # Points of checks this copy does not have (the student release has no
    # hidden checks): exercise id -> points, shown as graded by the teacher.
    teacher_points: dict = field(default_factory=dict)

    def exercise_points(self, exercise: str) -> tuple[float, float]:
        rs = [r for r in self.results if r.exercise == exercise]
        return sum(r.points for r in rs), sum(r.max_points for r in rs)

    @property
    def score(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.max_points for r in self.results)


@contextlib.contextmanager
def _no_plugin_autoload():
    """Installed pytest plugins (hypothesis's costs two seconds to import)
    have no business in grading: only our plugin is loaded."""
    old = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = old


class Grader:
    """One grader process: a zygote, then any number of submissions."""

    def __init__(
        self,
        limits: Limits | None = None,
        checks_dir: str = CHECKS,
        solutions_dir: str = SOLUTIONS,
        sandbox: str = "auto",
    ):
        """``sandbox``: "auto" (bubblewrap where it works, else a warning),
        "require" (raise SandboxUnavailable without it) or "off"."""
        from grader import limits as limits_mod
        from grader import sandbox as sandbox_mod
        from grader.zygote import Zygote

        limits_mod.become_subreaper()
        secrets = os.path.isdir(solutions_dir) or os.path.isdir(os.path.join(checks_dir, "hidden"))
        # "auto" sandboxes where there is something to protect: a student's copy
        # (no solutions, no hidden checks) grades the student's own code, and is
        # faster without a second interpreter to start.
        mode = "off" if sandbox == "auto" and not secrets else sandbox
        self.sandboxed = sandbox_mod.choose(mode, quiet=not secrets)
        # Private copies of submissions live here; it is the only folder of
        # ours a sandboxed child can see (read-only).
        self.exchange = tempfile.mkdtemp(prefix="attention-grader-")
        if self.sandboxed:
            # Started before this process imports torch: the two imports run side by side.
            prefix = sandbox_mod.command(PROJECT, self.exchange)
            self.remake = lambda: Zygote.exec(prefix)
            self.zygote = self.remake()
        import torch  # noqa: F401 - imported once here, inherited by every forked child

        if not self.sandboxed:
            self.remake = Zygote.exec
            self.zygote = Zygote.fork()
        self.limits = limits or Limits()
        self.checks_dir, self.solutions_dir = checks_dir, solutions_dir
        from grader.redact import Redactor

        self.redactor = Redactor(checks_dir, solutions_dir)
        self.reference_memo: dict = {}  # request key -> the reference's answer, for every submission
        self.references = None  # exercise id -> ReferenceEndpoint, loaded before the first submission runs

    def _reference_factory(self, record_into: dict | None):
        """Reference answers come from ``solutions/`` where it exists (the
        teacher's copy), else from the answers recorded into the student
        release (see ``recorded.py``)."""
        from grader import recorded
        from grader.endpoints import ReferenceEndpoint

        def path(ex):
            return os.path.join(self.solutions_dir, ex + ".py")

        if record_into is not None:
            return lambda ex: recorded.RecordingReference(ex, path(ex), record_into)
        if os.path.isdir(self.solutions_dir):
            if self.references is None:
                # Read once, and before any submission code has run in this
                # grader: without a sandbox a submission can write to
                # solutions/, and must not change the reference it is graded by.
                self.references = {ex: ReferenceEndpoint(ex, path(ex)) for ex in IDS if os.path.exists(path(ex))}
            return lambda ex: recorded.MemoReference(self.references[ex], self.reference_memo)
        book = recorded.load(os.path.join(self.checks_dir, "public", recorded.ANSWERS_FILE))
        return lambda ex: recorded.ReplayReference(ex, book)

    def _teacher_points(self, only: str | None) -> dict:
        """Hidden points per exercise, from ``checks/hidden_points.json`` (written
        into the student release in place of the hidden checks)."""
        import json

        path = os.path.join(self.checks_dir, HIDDEN_POINTS_FILE)
        if not os.path.exists(path):
            return {}
        with open(path, encoding="utf-8") as f:
            points = json.load(f)
        return {ex: float(p) for ex, p in points.items() if ex in IDS and only in (None, ex)}

    def check_dirs(self) -> list[str]:
        return [d for d in (os.path.join(self.checks_dir, "public"), os.path.join(self.checks_dir, "hidden")) if os.path.isdir(d)]

    def grade(
        self,
        path: str,
        only: str | None = None,
        display_root: str | None = None,
        public_only: bool = False,
        record_into: dict | None = None,
    ) -> Grade:
        import torch

        from grader import submission as submission_mod
        from grader.endpoints import SubmissionEndpoint, Zygotes

        start = time.monotonic()
        torch.set_num_threads(1)  # tiny tensors: threads cost more than they give
        sub = submission_mod.load(path, display_root, submission_mod.teacher_files([self.solutions_dir, self.checks_dir]))
        workdir = tempfile.mkdtemp(prefix="sub-", dir=self.exchange)
        zygotes = Zygotes(self.zygote, self.remake)
        order = [ex for ex in IDS if only in (None, ex)]
        endpoints = {ex: SubmissionEndpoint(sub.files[ex], zygotes, self.limits, workdir, sub) for ex in order}
        make_ref = self._reference_factory(record_into)  # before any submission code runs
        endpoints[order[0]].prestart()
        import pytest  # after the first child has started: its import overlaps ours

        from grader.plugin import GradingPlugin

        def make_sub(ex):
            # Start the next exercise's child now: its import overlaps this exercise's checks.
            later = order[order.index(ex) + 1 :]
            if later:
                endpoints[later[0]].prestart()
            return endpoints[ex]

        plugin = GradingPlugin(
            make_sub=make_sub,
            make_ref=make_ref,
            only=only,
        )
        dirs = self.check_dirs()
        if public_only:
            dirs = [d for d in dirs if os.path.basename(d) == "public"]
        args = dirs + [
            # No terminal plugin (below): results come from our plugin, and pytest's
            # own report, with an AST parse per stack frame for failures, is never made.
            "--assert=plain",  # checks use expect(), so no assertion rewriting (it costs a compile per file)
            "--capture=no",  # output is already redirected; per-test capture files cost time
            # Built-in plugins grading has no use for; each costs start-up time.
            *("-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin", "-p", "no:stepwise"),
            *("-p", "no:logging", "-p", "no:faulthandler", "-p", "no:legacypath", "-p", "no:warnings"),
            *("-p", "no:unraisableexception", "-p", "no:threadexception"),  # each runs gc.collect()
            *("-p", "no:terminal", "-p", "no:debugging", "-p", "no:setuponly", "-p", "no:setupplan"),
            *("-p", "no:tmpdir", "-p", "no:monkeypatch", "-p", "no:recwarn", "-p", "no:unittest"),
            *("-p", "no:python_path", "-p", "no:nose", "-p", "no:pytester", "-p", "no:skipping"),
            "--noconftest",
            "-p", "no:cacheprovider",
            "-p", "no:randomly",
            "--import-mode=importlib",
            "-c", os.path.join(self.checks_dir, "pytest.ini"),
            "--rootdir", self.checks_dir,
        ]
        grade = Grade(display_root or path)
        log = io.StringIO()
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), _no_plugin_autoload():
                warnings.simplefilter("ignore")
                code = pytest.main(args, plugins=[plugin])
        finally:
            plugin.close()
            for endpoint in endpoints.values():
                endpoint.close()
            self.zygote = zygotes.current
            try:
                self.zygote.kill_all()  # orphans that outlived their exercise
            except Exception:  # noqa: BLE001 - a dead zygote has nothing left to kill
                pass
            shutil.rmtree(workdir, ignore_errors=True)
        if plugin.collect_errors or code not in (0, 1):
            grade.errors.append(f"pytest exit code {code}\n" + "\n".join(plugin.collect_errors) + log.getvalue()[-4000:])
        order = {ex: i for i, ex in enumerate(IDS)}
        grade.results = sorted(plugin.results, key=lambda r: order[r.exercise])
        grade.outputs = {ex: text for ex, text in ((ex, ep.finish()) for ex, ep in endpoints.items()) if text.strip()}
        # Feedback quotes what the submission printed and raised: none of it
        # may carry the text of a hidden check or a solution.
        own = frozenset(
            line.strip() for f in sub.files.values() if f.source for line in f.source.decode("utf-8", "replace").splitlines()
        )
        for r in grade.results:
            r.feedback = self.redactor.clean(r.feedback, own)
        grade.outputs = {ex: self.redactor.clean(text, own) for ex, text in grade.outputs.items()}
        grade.teacher_points = self._teacher_points(only) if (public_only or not os.path.isdir(os.path.join(self.checks_dir, "hidden"))) else {}
        grade.seconds = time.monotonic() - start
        return grade

    def close(self) -> None:
        self.zygote.close()
        shutil.rmtree(self.exchange, ignore_errors=True)
