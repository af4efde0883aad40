"""The pytest plugin that turns check functions into points.

Checks are plain pytest tests in ``checks/public`` and ``checks/hidden``; the
file name says the exercise (``test_ex4_masking.py``), ``@pytest.mark.points(n)``
says what a check is worth and the docstring's first line names it. The
plugin hands each check two fixtures, ``sub`` and ``ref``, and records a
``CheckResult`` for every check instead of printing pytest's report.
"""

import functools
import os
from dataclasses import dataclass

import pytest

from grader.authoring.checking import CheckFailed, SubmissionFault, set_inputs_seed
from grader.exercises import IDS
from grader.text import DIAGNOSIS_LABEL, TESTED_LABEL, Text, t


@dataclass
class CheckResult:
    exercise: str
    name: str  # "中文 / English", from the docstring
    check_id: str  # the test function's name: stable, used in tags
    points: float
    max_points: float
    hidden: bool
    passed: bool
    feedback: str = ""  # what the student reads (it may quote the submission's output)
    # Decided here, in the grading process, from the check's own outcome: never
    # read back out of ``feedback``, which quotes what the submission raised
    # and printed (results.json's per-test ``extra_data`` holds both).
    not_implemented: bool = False  # the check met the untouched stub's NotImplementedError
    missing: bool = False  # the exercise's file (.py or notebook) is not in the folder
    diagnosis: Text | None = None  # the known mistake the answer matches (CheckFailed.diagnosis)


@functools.lru_cache(maxsize=None)
def exercise_of(path: str) -> str | None:
    stem = os.path.splitext(os.path.basename(path))[0]
    ex = stem.removeprefix("test_")
    return ex if ex in IDS else None


def _title(item) -> str:
    doc = (getattr(item, "function", None).__doc__ or "").strip()
    return doc.splitlines()[0].strip() if doc else item.name


@functools.lru_cache(maxsize=None)  # a batch asks again for every student: the items stay
def _points(item) -> float:
    marker = item.get_closest_marker("points")
    return float(marker.args[0]) if marker else 0.0


def _field(label: str, value: str) -> list[str]:
    pad = " " * (len(label) + 2)  # the label's two Chinese characters take two columns each
    lines = value.splitlines() or [""]
    return [label + lines[0]] + [pad + line for line in lines[1:]]


def _pair(label: str, text: Text) -> list[str]:
    if text.zh == text.en:
        return _field(label, text.zh)
    return _field(label, text.zh + "\n" + text.en)


def format_failure(what: Text, got: str, want: str, hint: Text | None, diagnosed: bool = False, difference: Text | None = None) -> str:
    lines = _pair(TESTED_LABEL, what)
    lines += _field("得到 / got:      ", got)
    lines += _field("期望 / expected: ", want)
    if difference:
        lines += _pair("差异 / differs:  ", difference)
    if hint and diagnosed:
        # The answer matched what a known mistake computes: say so plainly.
        lines += _pair(DIAGNOSIS_LABEL, hint)
    elif hint:
        lines += _pair("提示 / hint:     ", hint)
    return "\n".join(lines)


def format_fault(fault) -> str:
    lines = [fault.message.zh, fault.message.en]
    if fault.detail:
        lines.append(fault.detail)
    return "\n".join(lines)


class GradingPlugin:
    """``queue`` yields one grading per submission (see ``grading._Queue``):
    every collected check runs once per grading, against that grading's
    submission (``grading.make_sub(ex)``) and reference (``grading.make_ref(ex)``)."""

    def __init__(self, queue, only: str | None = None):
        self.queue, self.only = queue, only
        self.grading = None
        self.results: list[CheckResult] = []
        self._subs: dict = {}
        self._refs: dict = {}
        self.exercise: str | None = None  # the exercise of the check running now
        self.collect_errors: list[str] = []

    # - set-up -
    @pytest.hookimpl
    def pytest_addoption(self, parser):
        # Grading runs without pytest's terminal plugin, which owns --tb. Failures
        # are reported by this plugin (``_record``); "value" keeps pytest's own
        # report of a failure, which nobody reads, to the exception's message:
        # "long" parses the source of every stack frame, "native" formats every
        # frame (2 ms a failed check).
        try:
            parser.getgroup("grading").addoption("--tb", dest="tbstyle", default="value")
        except ValueError:
            pass  # the terminal plugin is loaded after all: its --tb stands

    @pytest.hookimpl
    def pytest_collection_modifyitems(self, session, config, items):
        keep = []
        for item in items:
            ex = exercise_of(str(item.path))
            if ex is None or (self.only and ex != self.only):
                continue
            keep.append(item)
        # Grouped by exercise, public before hidden: one child per exercise at a time.
        keep.sort(key=lambda it: (IDS.index(exercise_of(str(it.path))), "hidden" in it.path.parts))
        items[:] = keep

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        """pytest's own loop, once per submission. Each grading ends with
        ``nextitem=None``: everything set up for the checks is torn down, so
        no fixture carries anything from one submission to the next."""
        items = session.items
        for grading in self.queue:
            self.grading, self.results = grading, []
            set_inputs_seed(grading.inputs_seed)
            try:
                if not self.collect_errors:
                    for i, item in enumerate(items):
                        nextitem = items[i + 1] if i + 1 < len(items) else None
                        self.exercise = exercise_of(str(item.path))
                        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            finally:
                self.close()
                self._refs.clear()
            self.grading = None
            self.queue.finish(grading, self.results, self.collect_errors)
        return True

    @pytest.hookimpl
    def pytest_keyboard_interrupt(self, excinfo):
        self.queue.interrupted = True

    @pytest.hookimpl
    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(str(report.longrepr))

    # - fixtures -
    # Neither asks for pytest's ``request``: each use of it builds a fixture
    # definition of its own (with an inspect.signature), 7% of the grading
    # process's time. The loop above says which exercise is running.
    @pytest.fixture
    def sub(self):
        ex = self.exercise
        if ex not in self._subs:
            self._subs[ex] = self.grading.make_sub(ex)
        return self._subs[ex]

    @pytest.fixture
    def ref(self):
        ex = self.exercise
        if ex not in self._refs:
            self._refs[ex] = self.grading.make_ref(ex)
        return self._refs[ex]

    # - results -
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when == "call" or (call.when == "setup" and report.failed):
            self._record(item, call, report)

    @pytest.hookimpl
    def pytest_runtest_teardown(self, item, nextitem):
        ex = exercise_of(str(item.path))
        if nextitem is None or exercise_of(str(nextitem.path)) != ex:
            self._close(ex)

    def _record(self, item, call, report) -> None:
        ex = exercise_of(str(item.path))
        assert ex is not None  # pytest_collection_modifyitems kept only the exercises' checks
        points = _points(item)
        result = CheckResult(ex, _title(item), item.name, 0.0, points, "hidden" in item.path.parts, report.passed)
        if report.passed:
            result.points = points
        elif call.excinfo is not None:
            exc = call.excinfo.value
            if isinstance(exc, CheckFailed):
                result.feedback = format_failure(exc.what, exc.got, exc.want, exc.hint, exc.diagnosed, exc.difference)
                result.diagnosis = exc.diagnosis
            elif isinstance(exc, SubmissionFault):
                result.feedback = format_fault(exc.fault)
                result.not_implemented = exc.fault.not_implemented
                result.missing = exc.fault.missing
            else:
                # A check that breaks is the grader's fault, never the student's
                # gain: the check scores 0 and says so.
                result.feedback = str(
                    t(
                        f"检查本身出错（{type(exc).__name__}），请告诉老师",
                        f"the check itself failed ({type(exc).__name__}: {exc}); please tell your teacher",
                    )
                )
        self.results.append(result)

    def _close(self, ex: str) -> None:
        endpoint = self._subs.pop(ex, None)
        if endpoint is not None:
            endpoint.close()

    def close(self) -> None:
        for ex in list(self._subs):
            self._close(ex)
