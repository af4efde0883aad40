"""The submission side of a check: answers the checks' requests for one
exercise from a child process (``child_connection``), within the
exercise's time budget, starting a child again where one was lost."""

import time
from functools import partial

from grader.authoring.checking import Fault, SubmissionFault, malformed
from grader.authoring.endpoints import Endpoint
from grader.child import protocol
from grader.child.limits import Limits
from grader.child.zygote import Zygotes
from grader.engine import earlier
from grader.engine.child_connection import ChildConnection, Phase
from grader.engine.child_output import Drain
from grader.engine.child_replies import describe_error, validated
from grader.handin.submission import ExerciseFile
from grader.text import t

# How long a child may take to say it got the word to import: it does so
# before any submission code runs, so only a stopped or wedged child is late.
WORD_SECONDS = 5.0


class SubmissionEndpoint(Endpoint):
    """Talks to one exercise of a submission running in a child process.

    The child may be started ahead (``prestart``), while another exercise's
    checks run, but it imports the file only when this exercise's first check
    asks (``_start``): the import, and every limit of this exercise, run in
    this exercise's own time. It is restarted (the file imported again) if it
    dies or times out, as long as the exercise's time budget lasts.
    """

    def __init__(self, file: ExerciseFile, zygotes: Zygotes, limits: Limits, workdir: str, submission, shared_copy: bool = False, references: dict | None = None):
        """``shared_copy``: children cannot write the folder they import from
        (see ``Submission.private_copy``). ``references``: exercise id ->
        ReferenceEndpoint, where the grader has the solutions: it answers the
        child's questions about earlier exercises' functions (``earlier``)."""
        self.file, self.zygotes, self.limits = file, zygotes, limits
        self.references = references
        self.workdir, self.submission, self.shared_copy = workdir, submission, shared_copy
        self.child: ChildConnection | None = None  # the child now, whatever its phase
        self.budget_end: float | None = None  # set when the exercise begins (its first import)
        self.import_deadline: float | None = None
        self.final_fault: Fault | None = None  # a fault every further request repeats
        # A child lost in ways that may not be this exercise's doing is
        # replaced once (``replaced``): see _heard_the_word, _await_import, request.
        self.started_ahead = self.replaced = False
        self.answered = False  # a child of this exercise has answered a request
        self.finished_drains: list[Drain] = []
        self.next_id = 0
        self.output = ""

    # - lifecycle -
    def prestart(self) -> None:
        """Start the child now, while the grader does other work: ``_start``
        then finds it forked and set up, waiting for the word to import."""
        if self.file.problem is None and self.final_fault is None and self.child is None:
            self.started_ahead = True
            try:
                self._spawn()
            except SubmissionFault:
                pass  # _start will say why

    def _fail(self, fault: Fault) -> SubmissionFault:
        """Make ``fault`` the exercise's last word: every further request repeats it."""
        self.final_fault = fault
        return SubmissionFault(fault)

    def _out_of_time(self) -> SubmissionFault:
        return self._fail(
            Fault(
                t(
                    f"这道练习用完了 {self.limits.exercise_seconds:.0f} 秒的时间",
                    f"this exercise used up its {self.limits.exercise_seconds:.0f} s of time",
                )
            )
        )

    def _spawn(self) -> None:
        if self.budget_end is not None and time.monotonic() >= self.budget_end:
            raise self._out_of_time()
        spec = {
            "exercise": self.file.exercise_id,
            "display_name": self.file.display_name,
            "limits": self.limits.to_dict(),
        }
        answer = partial(earlier.answer, self.references, self.file.exercise_id) if self.references is not None else None
        self.child = ChildConnection(self.zygotes, spec, self.limits.output_bytes, answer)

    @property
    def _live(self) -> ChildConnection:
        """The child, where the code asking has made sure there is one."""
        assert self.child is not None
        return self.child

    @property
    def _budget_end(self) -> float:
        """When the exercise's time is up: set by its first import (``_send_the_word``)."""
        assert self.budget_end is not None
        return self.budget_end

    @property
    def _import_deadline(self) -> float:
        assert self.import_deadline is not None
        return self.import_deadline

    def _ready(self) -> bool:
        return self.child is not None and self.child.phase is Phase.READY

    def _start(self) -> None:
        """Have a child import the file, forking one if there is none; a child
        lost in a way that may not be this exercise's doing is replaced once."""
        if self.file.problem is not None:
            self.final_fault = Fault(self.file.problem, missing=self.file.missing)
        if self.final_fault:
            raise SubmissionFault(self.final_fault)
        while not self._ready():
            if self.child is None:
                self._spawn()
            if self._live.phase is Phase.FORKED:
                self._send_the_word()
                if not self._heard_the_word():
                    continue  # replaced: the new child is told afresh
            self._await_import()

    def _send_the_word(self) -> None:
        # This exercise begins now: its clock starts, and its code runs
        # only once nothing of an earlier exercise is left running.
        now = time.monotonic()
        if self.budget_end is None:
            self.budget_end = now + self.limits.exercise_seconds
        if now >= self.budget_end:
            self._stop()
            raise self._out_of_time()
        if self.started_ahead:
            # Started ahead, it may have been stopped (SIGSTOP) by the
            # exercise before it: woken once that exercise is over.
            self.zygotes.wake(self._live.pid)
        else:
            self.zygotes.settle()
        self.import_deadline = min(time.monotonic() + self.limits.import_seconds, self.budget_end)
        self._live.phase = Phase.IMPORTING
        word = {
            "op": "import",
            "private_dir": self.submission.private_copy(self.workdir, self.shared_copy),
            # The grading process answers the earlier exercises' functions (earlier.py).
            "earlier": self.references is not None,
        }
        try:
            self._live.send(word)
        except OSError:
            pass  # the child is dead: _await_import says so

    def _heard_the_word(self) -> bool:
        """The child says it got the word before it imports anything. A child
        that does not say so within ``WORD_SECONDS`` is stopped or wedged,
        not slow: it is replaced once (False: ``_start`` forks another), and
        after that the exercise fails. A child that died says so in
        ``_await_import``."""
        try:
            heard = self._live.receive_raw(min(time.monotonic() + WORD_SECONDS, self._import_deadline))
        except (protocol.Closed, protocol.ProtocolError):
            return True  # _await_import reads the same end of the pipe, and says why
        except protocol.Timeout:
            self._stop()
            if not self.replaced:
                self.replaced = True
                return False
            raise self._fail(
                Fault(
                    t(
                        f"进程 {WORD_SECONDS:.0f} 秒内没有开始导入文件（被暂停了？）",
                        f"the process did not begin to import the file within {WORD_SECONDS:.0f} s (was it stopped?)",
                    )
                )
            ) from None
        if heard != {"heard": True}:
            self._stop()
            raise self._fail(malformed())
        return True

    def _await_import(self) -> None:
        """Wait for the child to say it imported the file; the child is then
        ready, or stopped (and, once, left for ``_start`` to replace)."""
        try:
            ready = self._live.receive(self._import_deadline)
        except protocol.Timeout:
            self._stop()
            raise self._fail(
                Fault(
                    t(
                        f"导入文件超过了 {self.limits.import_seconds:.0f} 秒：模块顶层是否有死循环或很慢的计算？",
                        f"importing the file took over {self.limits.import_seconds:.0f} s: is there an endless loop or slow work at the top level?",
                    )
                )
            ) from None
        except (protocol.Closed, protocol.ProtocolError):
            self._stop()
            if self.started_ahead and not self.replaced:
                # A child started ahead may have been killed by the exercise
                # graded before it: that is not this exercise's fault. Once more.
                self.replaced = True
                return
            raise self._fail(
                Fault(
                    t("导入文件时进程意外结束（退出、崩溃或内存超限）", "the process ended while importing the file (exit, crash or memory limit)"),
                    self.output.strip()[-800:],
                )
            ) from None
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            error = ready.get("error") if isinstance(ready, dict) else None
            self._stop()
            fault = describe_error(error, self.file)
            if not fault.not_implemented:
                fault.message = t("导入文件失败：" + fault.message.zh, "importing the file failed: " + fault.message.en)
            raise self._fail(fault)
        self._live.phase = Phase.READY

    def _stop(self) -> None:
        """Kill the child and everything it started; keep what it printed."""
        # No child any more: the next request starts a new one (without
        # this it wrote to the closed pipe, and every later check of the
        # exercise "failed by itself" with a TypeError).
        if self.child is not None:
            # Read in finish(), once the child and all it started are dead.
            self.finished_drains.append(self.child.stop())
            self.child = None

    def close(self) -> None:
        self._stop()

    def finish(self) -> str:
        """Everything the exercise's children printed (call after the zygote's kill_all)."""
        for drain in self.finished_drains:
            drain.join(timeout=5)
            self.output += drain.text()
        self.finished_drains.clear()
        return self.output

    # - requests -
    def request(self, request: dict) -> dict:
        while True:
            if not self._ready():
                self._start()
            self.next_id += 1
            request = dict(request, id=self.next_id)
            deadline = min(time.monotonic() + self.limits.request_seconds, self._budget_end)
            try:
                response = self._live.exchange(request, deadline)
                break
            except (protocol.Closed, BrokenPipeError, OSError):
                self._stop()
                if self.started_ahead and not self.replaced and not self.answered:
                    # Started ahead, it was killed before its first request, maybe
                    # by the exercise graded before it (after its import had
                    # finished): not this exercise's fault. Once more, afresh.
                    self.replaced = True
                    continue
                raise SubmissionFault(
                    Fault(
                        t("进程意外结束（调用了退出、崩溃或内存超限）", "the process ended unexpectedly (an exit call, a crash or the memory limit)"),
                    )
                ) from None
            except protocol.Timeout:
                self._stop()
                raise SubmissionFault(
                    Fault(
                        t(
                            f"超时：{self.limits.request_seconds:.0f} 秒内没有算完（死循环？）",
                            f"time limit: no answer within {self.limits.request_seconds:.0f} s (an endless loop?)",
                        )
                    )
                ) from None
            except protocol.ProtocolError as exc:
                self._stop()
                raise SubmissionFault(Fault(t("返回的结果无法安全读取", "the result could not be read safely"), str(exc))) from None
        self.answered = True
        if "error" in response:
            raise SubmissionFault(describe_error(response["error"], self.file))
        if request.get("op") != "batch":
            return validated(response)
        # A batch's answers: an error answers its own request only, as the
        # fault the check meets when it looks at that one (endpoints.unpack).
        answers = validated(response, len(request["requests"]))["batch"]
        return {"batch": [SubmissionFault(describe_error(a["error"], self.file)) if set(a) == {"error"} else a for a in answers]}
