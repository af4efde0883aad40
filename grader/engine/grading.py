"""Grading submissions: collect the checks with pytest, answer them from a
child process per exercise, and return the results.

A ``Grader`` must be made before anything a submission must not see is
imported (the solutions, the checks): it forks the zygote that children are
made from (see the map of processes in ``zygote``).
"""

import contextlib
import io
import os
import shutil
import signal
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field

from grader.child.limits import Limits
from grader.exercises import IDS
from grader.files import CHECKS, PROJECT, SOLUTIONS

HIDDEN_POINTS_FILE = "hidden_points.json"


def unconfined_note(problems: list) -> str:
    """What ``grade`` and ``batch`` say once when submission code could not
    be confined in full (results.json keeps the list in ``extra_data``)."""
    return "注意：提交的代码没有受到全部的隔离 / note: submission code is not fully confined here:\n  " + "\n  ".join(problems)


def fresh_inputs_seed() -> int:
    """A new secret for the checks' inputs (never 0, which means "as written")."""
    import secrets

    return 1 + secrets.randbelow(1 << 62)


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
    inputs_seed: int = 0  # what the checks' inputs were drawn with (0: as written in the checks)
    unconfined: list = field(default_factory=list)  # what could not be done to confine the submission's code
    notes: dict = field(default_factory=dict)  # exercise id -> how its file was read (text.Text each): a notebook's cells, which file of two

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
        many: bool = False,
        inputs_seed: int | None = None,
    ):
        """``sandbox``: "auto" (bubblewrap where it works, else a warning),
        "require" (raise SandboxUnavailable without it) or "off". ``many``:
        this grader will grade many submissions (a batch worker): its zygote
        spends half a second at start-up to make every child cheaper.
        ``inputs_seed``: mixed into every check's inputs (see
        ``checking.set_inputs_seed``); by default a fresh secret where the
        solutions are (a teacher's grading: no submission has seen the
        inputs), and 0 without them (the student's own run, reproducible,
        answered from the release's recorded answers)."""
        # The order is the point: each step needs the ones before it.
        self._protect_this_process()  # before any child exists
        self.limits = limits or Limits()
        self._choose_confinement(sandbox, checks_dir, solutions_dir)  # the sandbox, else the children's own user
        from grader.child import cgroup

        # Memory and processes counted for all of a submission's processes
        # together: the zygote joins the group, so it comes first.
        self.group = cgroup.make(self.limits.memory_bytes, self.limits.processes)
        self.exchange = self._exchange_folder()  # where it may be depends on the children's user; the sandbox binds it
        self.remake = self._zygote_maker(many)  # also makes a new one where a submission killed it
        self.zygote = self._first_zygote(many)  # before anything a submission must not see is imported
        if sandbox == "require":
            self._refuse_unconfined()
        self.checks_dir, self.solutions_dir = checks_dir, solutions_dir
        self.inputs_seed = self.seed_for(inputs_seed)
        from grader.engine.redact import Redactor  # after the zygote: it reads the checks and the solutions

        self.redactor = Redactor(checks_dir, solutions_dir)
        self.reference_memo: dict = {}  # request key -> the reference's answer, for every submission
        self.references: dict | None = None  # exercise id -> ReferenceEndpoint, loaded before the first submission runs

    @staticmethod
    def _protect_this_process() -> None:
        """A subreaper (what a child orphans comes back here), and no child
        may open this process's memory through /proc."""
        from grader.child import confine
        from grader.child import limits as limits_mod

        limits_mod.become_subreaper()
        confine.protect_self()

    def _choose_confinement(self, sandbox: str, checks_dir: str, solutions_dir: str) -> None:
        """The sandbox, where it is asked for or there is something to
        protect; without it, where the grader is root, a user of the
        grader's own for the children. Sets ``quiet``, ``sandboxed``,
        ``child_user`` (and its claim) and ``unconfined``."""
        from grader.child import child_user
        from grader.engine import sandbox as sandbox_mod

        hidden = os.path.join(checks_dir, "hidden")
        secrets = os.path.isdir(solutions_dir) or os.path.isdir(hidden)
        self.quiet = not secrets  # a student's own copy grades the student's own code: nothing to warn about
        # "auto" sandboxes where there is something to protect: a student's copy
        # (no solutions, no hidden checks) grades the student's own code, and is
        # faster without a second interpreter to start.
        mode = "off" if sandbox == "auto" and not secrets else sandbox
        self.sandboxed = sandbox_mod.choose(mode, quiet=self.quiet)
        self.unconfined: list[str] = []  # what could not be done to confine children here (said once)
        # Root without a sandbox: children run as a user of the grader's own.
        self.child_user, self._user_claim = None, None
        if child_user.wanted(self.sandboxed):
            decision = child_user.probe(child_user.interpreter_paths(), [solutions_dir, hidden])
            self.child_user, self._user_claim = decision.user, decision.claim_fd
            self.unconfined += decision.problems

    def _exchange_folder(self) -> str:
        """Private copies of submissions live here; it is the only folder of
        ours a sandboxed child can see (read-only). The grader's own user
        may go through it to its copy, never list it."""
        if self.child_user is None:
            return tempfile.mkdtemp(prefix="attention-grader-")
        # In /tmp, not in a batch worker's own folder (0700 all the way
        # down): every folder above the copy must let that user through.
        folder = tempfile.mkdtemp(prefix="attention-grader-", dir="/tmp")
        os.chmod(folder, 0o711)
        return folder

    def _zygote_maker(self, many: bool):
        """How this grader makes a zygote in a new interpreter: in the
        sandbox where there is one, else as the children's user if any."""
        from grader.child.zygote import Zygote
        from grader.engine import sandbox as sandbox_mod

        if self.sandboxed:
            prefix = sandbox_mod.command(PROJECT, self.exchange)
            return lambda: Zygote.exec(prefix, many=many, group=self.group)
        return lambda: Zygote.exec(many=many, user=self.child_user, group=self.group)

    def _first_zygote(self, many: bool):
        """The zygote, made before this process imports anything a submission
        must not see (the solutions, the checks): the grader imports torch
        here, at the point that makes it cheapest for the zygote. A sandboxed
        zygote is a new interpreter, started first so that its import of
        torch and this process's run side by side; otherwise the zygote is a
        fork of this process, made once torch is imported, so it inherits it."""
        from grader.child.zygote import Zygote

        if self.sandboxed:
            zygote = self.remake()
            import torch  # noqa: F401 - used by the checks and the reference, in this process

            return zygote
        import torch  # noqa: F401 - imported once here, inherited by every forked child

        return Zygote.fork(many=many, user=self.child_user, group=self.group)

    def zygotes_for_one(self):
        """The zygote, for one submission's grading: replaced for the rest of
        that grading if its code kills it (``Zygotes``); ``keep_zygote``
        takes back whichever is alive at its end."""
        from grader.child.zygote import Zygotes

        return Zygotes(self.zygote, self.remake)

    def keep_zygote(self, zygote) -> None:
        self.zygote = zygote

    def seed_for(self, asked: int | None = None, recording: bool = False) -> int:
        """The one rule for the secret a grading draws the checks' inputs
        with: 0, the inputs as written, where the reference's answers are
        replayed from a recording (no solutions here: a student's copy) or
        are being recorded (``Job.record_into``); otherwise the one
        ``asked`` for, or a fresh one."""
        if recording or not os.path.isdir(self.solutions_dir):
            return 0
        return fresh_inputs_seed() if asked is None else int(asked)

    def _refuse_unconfined(self) -> None:
        """``--sandbox require``: no grading where a child could not be
        confined in full (the seccomp filter failed to install, say)."""
        from grader.engine.sandbox import SandboxUnavailable

        try:
            problems = self.zygote.ask_unconfined()
        except Exception as exc:  # noqa: BLE001 - a zygote that cannot answer cannot confine either
            problems = [f"the zygote did not answer ({exc})"]
        if problems:
            self.close()
            raise SandboxUnavailable("提交的代码没法完全隔离，不予评分 / submission code cannot be fully confined here, so nothing is graded:\n  " + "\n  ".join(problems))

    def note_unconfined(self, zygote) -> list[str]:
        """What children could not be confined by here: the grader's
        ``probe`` and the zygote's (asked of it once)."""
        try:
            found = zygote.ask_unconfined()
        except Exception:  # noqa: BLE001 - a zygote a submission killed has nothing to say; its successor is asked next time
            found = []
        for problem in found:
            if problem not in self.unconfined:
                self.unconfined.append(problem)
        return list(self.unconfined)

    def reference_factory(self, record_into: dict | None):
        """Reference answers come from ``solutions/`` where it exists (the
        teacher's copy), else from the answers recorded into the student
        release (see ``recorded.py``)."""
        from grader.engine import recorded
        from grader.engine.reference_endpoint import ReferenceEndpoint

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
            references = self.references
            return lambda ex: recorded.MemoReference(references[ex], self.reference_memo)
        book = recorded.load(os.path.join(self.checks_dir, "public", recorded.ANSWERS_FILE))
        return lambda ex: recorded.ReplayReference(ex, book)

    def teacher_points(self, only: str | None) -> dict:
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
        inputs_seed: int | None = None,
    ) -> Grade:
        """Grade one submission folder. ``inputs_seed``: this grading's
        secret for the checks' inputs, in place of the grader's own (a warm
        grader gives each grading a fresh one: ``seed_for``)."""
        got: list = []
        job = Job(path, display_root, record_into, inputs_seed=inputs_seed)
        self.grade_each([job], lambda job, grade: got.append(grade), only, public_only)
        if isinstance(got[0], BaseException):
            raise got[0]
        return got[0]

    def grade_each(self, jobs, on_grade, only: str | None = None, public_only: bool = False) -> None:
        """Grade every ``Job`` that ``jobs`` yields, calling ``on_grade(job,
        grade)`` as each one ends (``grade`` is an exception if the grader
        failed on it). ``jobs`` may block: a batch worker hands in students as
        they come.

        One pytest session serves them all: pytest's start-up and the
        collection of the checks (a fifth of the grading process's time per
        submission) happen once. Every submission runs every check anew, its fixtures set up
        and torn down as in a session of its own. If a session ends early (a
        fault of the grader), the submission under way gets the error and a
        new session takes the rest. Ctrl-C raises KeyboardInterrupt here once
        everything is cleaned up."""
        import torch

        torch.set_num_threads(1)  # tiny tensors: threads cost more than they give
        queue = _Queue(self, iter(jobs), on_grade, only, public_only)
        queue.prime()  # the first submission's first child starts while pytest starts
        while not queue.ended or queue.primed is not None:
            code, log = self._session(queue, only, public_only)
            problem = f"pytest exit code {code}\n{log[-4000:]}"
            broken = queue.current or queue.primed
            if broken is not None:
                # The session broke off in the middle of this submission (or before it began).
                queue.current = queue.primed = None
                broken.abort()
                if not queue.interrupted:  # Ctrl-C: not graded, and not the grader's fault either
                    queue.report(broken.job, Grade(broken.job.display_root or broken.job.path, errors=[problem]))
            elif not queue.started:
                # pytest stopped before it ran anything (a broken pytest.ini, say):
                # each submission would meet the same fate, so say so for one and go on.
                job = queue.take()
                if job is not None:
                    queue.report(job, Grade(job.display_root or job.path, errors=[problem]))
            if queue.interrupted:
                break
        if queue.interrupted:
            raise KeyboardInterrupt
        if queue.source_error is not None:
            raise queue.source_error

    def _forget_other_checks(self) -> None:
        """pytest names a check module by its path below the rootdir
        (``public.test_ex0_weighted_sum``) and reuses a module of that name
        already imported: one from another checks folder (another Grader in
        this process, e.g. the student release's) would stand in for ours."""
        import sys

        mine = os.path.realpath(self.checks_dir) + os.sep
        for name, module in list(sys.modules.items()):
            if name.split(".")[0] in ("public", "hidden"):
                where = getattr(module, "__file__", None) or ""
                if not os.path.realpath(where).startswith(mine):
                    del sys.modules[name]

    def _session(self, queue: "_Queue", only: str | None, public_only: bool) -> tuple[int, str]:
        import pytest  # here, not at the top: the zygote must be forked before it is imported

        from grader.engine.plugin import GradingPlugin

        plugin = GradingPlugin(queue, only=only)
        queue.started = False
        dirs = self.check_dirs()
        if public_only:
            dirs = [d for d in dirs if os.path.basename(d) == "public"]
        if only:
            # One exercise's files, not every module: pytest looks at every
            # name of every module it collects, 20 ms of each check().
            files = [path for d in dirs for path in [os.path.join(d, f"test_{only}.py")] if os.path.isfile(path)]
            dirs = files or dirs
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
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--import-mode=importlib",
            "-c",
            os.path.join(self.checks_dir, "pytest.ini"),
            "--rootdir",
            self.checks_dir,
        ]
        self._forget_other_checks()
        log = io.StringIO()
        queue.log = log
        with warnings.catch_warnings(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), _no_plugin_autoload():
            warnings.simplefilter("ignore")
            code = pytest.main(args, plugins=[plugin])
        return int(code), log.getvalue()

    def close(self) -> None:
        """End the zygote and its children, and clean up. A Ctrl-C meanwhile
        is ignored (tox sends a second one right after the first): a close
        broken off half-way would leave them running and print a traceback."""
        with _ctrl_c_ignored():
            self.zygote.close()
            shutil.rmtree(self.exchange, ignore_errors=True)
            if self.group is not None:
                self.group.remove()
            if self._user_claim is not None:
                os.close(self._user_claim)  # the user is free for another grader once the zygote is gone too


@contextlib.contextmanager
def _ctrl_c_ignored():
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread takes signals (and may set their handlers)
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if before is None else before)  # None: set outside Python


@dataclass
class Job:
    """One submission to grade."""

    path: str
    display_root: str | None = None  # how reports name the folder
    record_into: dict | None = None  # record the reference's answers here (the student release)
    key: object = None  # whatever the caller needs to tell its jobs apart
    inputs_seed: int | None = None  # this submission's secret for the checks' inputs; None: the grader's


class _Queue:
    """The submissions of one ``grade_each``, in order: what the plugin's
    test loop iterates over, one ``_Grading`` (every check, once) each."""

    def __init__(self, grader: Grader, jobs, on_grade, only: str | None, public_only: bool):
        self.grader, self.jobs, self.on_grade = grader, jobs, on_grade
        self.only, self.public_only = only, public_only
        self.current: "_Grading | None" = None  # the submission the checks are running on
        self.primed: "_Grading | None" = None  # set up before its session started
        self.ended = self.interrupted = self.started = False
        self.source_error: BaseException | None = None  # raised by ``jobs`` itself
        self.log: io.StringIO | None = None

    def take(self) -> Job | None:
        if self.ended:
            return None
        try:
            return next(self.jobs)
        except StopIteration:
            pass
        except BaseException as exc:  # noqa: BLE001 - e.g. Ctrl-C while waiting for work: re-raised after the session
            self.source_error = exc
        self.ended = True
        return None

    def _begin(self, job: Job) -> "_Grading | None":
        try:
            return _Grading(self.grader, job, self.only, self.public_only)
        except Exception as exc:  # noqa: BLE001 - this submission could not be set up: say so, go on
            self.report(job, exc)
            return None

    def prime(self) -> None:
        """Set up the first submission before pytest starts."""
        while self.primed is None and (job := self.take()) is not None:
            self.primed = self._begin(job)

    def __iter__(self):
        while True:
            if self.primed is not None:
                self.current, self.primed = self.primed, None
            else:
                job = self.take()
                if job is None:
                    return
                if self.log is not None:
                    self.log.seek(0)
                    self.log.truncate()  # what pytest said about earlier submissions is of no use now
                self.current = self._begin(job)
                if self.current is None:
                    continue
            self.started = True
            yield self.current

    def finish(self, grading: "_Grading", results: list, collect_errors: list) -> None:
        """The plugin ran every check on ``grading``'s submission."""
        self.current = None
        grade: Grade | Exception
        try:
            grade = grading.finish(results, collect_errors, self.log.getvalue() if self.log else "")
        except Exception as exc:  # noqa: BLE001 - reported for this submission; the batch goes on
            grade = exc
        self.report(grading.job, grade)

    def report(self, job: Job, grade) -> None:
        try:
            self.on_grade(job, grade)
        except BaseException as exc:  # noqa: BLE001 - the caller's own failure: no more submissions, re-raised after the session
            self.source_error = self.source_error or exc
            self.ended = True


class _Grading:
    """One submission's grading: its child processes, while the checks run."""

    def __init__(self, grader: Grader, job: Job, only: str | None, public_only: bool):
        from grader.engine.submission_endpoint import SubmissionEndpoint
        from grader.handin import submission as submission_mod

        self.grader, self.job, self.only, self.public_only = grader, job, only, public_only
        self.start = time.monotonic()
        self.sub = submission_mod.load(job.path, job.display_root, submission_mod.teacher_files([grader.solutions_dir, grader.checks_dir]))
        self.workdir = tempfile.mkdtemp(prefix="sub-", dir=grader.exchange)
        if grader.child_user is not None:
            os.chmod(self.workdir, 0o711)  # to be gone through to the copy, not listed
        self.zygotes = grader.zygotes_for_one()
        self.order = [ex for ex in IDS if only in (None, ex)]
        # Where no child can write the copy (the sandbox binds it read-only;
        # the grader's own user does not own it), one copy serves all exercises.
        shared = grader.sandboxed or grader.child_user is not None
        self.make_ref = grader.reference_factory(job.record_into)  # before any submission code runs
        # Earlier exercises' functions are answered from the references where
        # the grader has them (a teacher's grading), not while recording.
        references = grader.references if job.record_into is None else None
        self.endpoints = {ex: SubmissionEndpoint(self.sub.files[ex], self.zygotes, grader.limits, self.workdir, self.sub, shared, references) for ex in self.order}
        # A job without a secret of its own grades with the grader's (a batch's, shared by its students).
        self.inputs_seed = grader.seed_for(grader.inputs_seed if job.inputs_seed is None else job.inputs_seed, recording=job.record_into is not None)
        self.endpoints[self.order[0]].prestart()
        self.closed = False

    def make_sub(self, ex: str):
        # Start the next exercise's child now: its import overlaps this exercise's checks.
        later = self.order[self.order.index(ex) + 1 :]
        if later:
            self.endpoints[later[0]].prestart()
        return self.endpoints[ex]

    def _close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for endpoint in self.endpoints.values():
            endpoint.close()
        self.grader.keep_zygote(self.zygotes.current)
        try:
            self.zygotes.current.kill_all()  # orphans that outlived their exercise
        except Exception:  # noqa: BLE001 - a dead zygote has nothing left to kill
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)

    def abort(self) -> None:
        self._close()

    def finish(self, results: list, collect_errors: list, log: str) -> Grade:
        self._close()
        grader, sub = self.grader, self.sub
        grade = Grade(self.job.display_root or self.job.path, inputs_seed=self.inputs_seed, unconfined=grader.note_unconfined(self.zygotes.current))
        if collect_errors:
            grade.errors.append("pytest could not collect the checks\n" + "\n".join(collect_errors) + log[-4000:])
        order = {ex: i for i, ex in enumerate(IDS)}
        grade.results = sorted(results, key=lambda r: order[r.exercise])
        grade.outputs = {ex: text for ex, text in ((ex, ep.finish()) for ex, ep in self.endpoints.items()) if text.strip()}
        # Feedback quotes what the submission printed and raised: none of it
        # may carry the text of a hidden check or a solution.
        own = frozenset(line.strip() for f in sub.files.values() if f.source for line in f.source.decode("utf-8", "replace").splitlines())
        for r in grade.results:
            r.feedback = grader.redactor.clean(r.feedback, own)
        grade.outputs = {ex: grader.redactor.clean(text, own) for ex, text in grade.outputs.items()}
        grade.notes = {ex: sub.files[ex].notes for ex in self.order if sub.files[ex].notes}
        hidden_here = os.path.isdir(os.path.join(grader.checks_dir, "hidden"))
        grade.teacher_points = grader.teacher_points(self.only) if (self.public_only or not hidden_here) else {}
        grade.seconds = time.monotonic() - self.start
        return grade
