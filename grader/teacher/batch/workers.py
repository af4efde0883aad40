"""The batch's worker processes: each owns one ``Grader`` (its own clean
zygote) and one pytest session (``Grader.grade_each``) for every student it
grades, one at a time, as the batch hands them out.

What a worker answers, one message per student, is made here (``_worker``)
and read here (``Worker.receive``):

- ``("done", student_id, payload)``: the student was graded; ``payload`` has
  the results.json, the feedback Markdown, points per exercise, errors and
  seconds;
- ``("error", student_id, traceback)``: the grader failed on this student;
- ``("fatal", traceback)``: the worker could not start a grader at all.

``WorkerPool`` is N of them: it hands the students out, replaces a worker
that dies and stops them all at the end.
"""

import collections
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback

from grader.exercises import IDS
from grader.student import report

CTX = multiprocessing.get_context("fork")
STUDENT_SECONDS = 900  # a worker silent this long on one student is stopped (the grader's own limits come first)


def _die_with_parent(sig: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, sig, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker(conn, parent_pid: int, inherited, sandbox: str | None, work: str, inputs_seed: int | None) -> None:
    """A worker process: one Grader, then students until told to stop.

    Ctrl-C (or the parent's death) interrupts the grading under way (pytest
    stops, the grader cleans up its children) and the worker leaves without
    answering. Its temporary files go under the batch's work folder, which
    the batch removes (or the next batch, if this one was killed)."""
    for c in inherited:  # the parent's ends of other pipes: they must close when the parent does
        c.close()
    try:
        # A process group of its own: a submission that kills its grader's
        # group (possible without the sandbox) takes this worker, not the batch.
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    interrupted = []

    def on_sigint(signum, frame):
        interrupted.append(signum)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # once is enough: let the clean-up run
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    _die_with_parent(signal.SIGINT)
    if os.getppid() != parent_pid:
        return
    try:
        tempfile.tempdir = tempfile.mkdtemp(prefix="worker-", dir=work)
    except OSError:
        pass
    grader = None
    try:
        try:
            from grader.engine.grading import Grader
            from grader.student.grade_command import job_of
            from grader.student.request import GradeRequest

            grader = Grader(many=True, inputs_seed=inputs_seed) if sandbox is None else Grader(many=True, inputs_seed=inputs_seed, sandbox=sandbox)
        except Exception:  # noqa: BLE001 - reported, and this worker stops
            conn.send(("fatal", traceback.format_exc(limit=5)))
            return

        def students():
            while not interrupted:
                task = conn.recv()
                if task is None:
                    return
                student_id, folder, display = task
                yield job_of(GradeRequest(folder, display_name=display), key=student_id)

        def send(job, grade) -> None:
            if interrupted:
                raise KeyboardInterrupt
            if isinstance(grade, BaseException):  # the grader failed on this student: say so, go on
                conn.send(("error", job.key, "".join(traceback.format_exception(grade, limit=5))))
                return
            payload = {
                "results": report.results_json(grade),
                "markdown": report.markdown(grade),
                "points": {ex: grade.exercise_points(ex) for ex in IDS},
                "errors": list(grade.errors),
                "seconds": grade.seconds,
            }
            conn.send(("done", job.key, payload))

        # One pytest session for every student this worker grades.
        grader.grade_each(students(), send)
    except (KeyboardInterrupt, EOFError, OSError):
        pass
    finally:
        if grader is not None:
            try:
                grader.close()
            except BaseException:  # noqa: BLE001 - leaving anyway
                pass


class Worker:
    """The batch's end of one worker process: hands it one student at a
    time (``send``) and reads what comes back (``receive``)."""

    def __init__(self, inherited, sandbox: str | None, work: str, inputs_seed: int | None):
        self.conn, child = CTX.Pipe()
        self.proc = CTX.Process(target=_worker, args=(child, os.getpid(), [self.conn, *inherited], sandbox, work, inputs_seed), daemon=True)
        self.proc.start()
        child.close()
        self.entry = None
        self.since = 0.0

    def send(self, entry) -> None:
        self.entry, self.since = entry, time.monotonic()
        self.conn.send((entry.student_id, entry.folder, entry.display))

    def stop(self, sig=signal.SIGINT) -> None:
        if self.proc.is_alive() and self.proc.pid is not None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def receive(self):
        """The worker's answer: ``("done", payload)``, ``("error", text)`` or
        ``("fatal", text)``; ``None`` when the worker died instead."""
        try:
            msg = self.conn.recv()
        except (EOFError, OSError):
            return None
        if msg[0] == "fatal":
            return msg
        return msg[0], msg[2]


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class WorkerPool:
    """Up to ``jobs`` workers grading a list of students, one each at a time."""

    def __init__(self, jobs: int, sandbox: str | None, work: str, inputs_seed: int | None, open_elsewhere):
        """``open_elsewhere()``: what the batch holds open besides the
        workers' pipes, asked at each new worker, which closes its copies."""
        self.jobs, self.sandbox, self.work, self.inputs_seed = jobs, sandbox, work, inputs_seed
        self.open_elsewhere = open_elsewhere
        self.workers: list[Worker] = []
        self.spawned = self.max_spawn = 0

    def _spawn(self) -> Worker | None:
        """A new worker, unless so many have died that another would too."""
        self.spawned += 1
        if self.spawned > self.max_spawn:
            return None
        inherited = [*self.open_elsewhere(), *(w.conn for w in self.workers)]
        w = Worker(inherited, self.sandbox, self.work, self.inputs_seed)
        self.workers.append(w)
        return w

    def grade_all(self, to_grade: list, done, failed) -> int:
        """Hand the students out to the workers, one at a time each, until
        every one has come back: ``done(entry, payload)`` for a grade,
        ``failed(entry, why, seconds)`` for a student the grader failed on.
        A worker that dies is replaced; its student gets a row saying so
        (and is graded again by the next run). The exit code: 3 when no
        worker could start a grader, else 0."""
        pending = collections.deque(to_grade)
        # Each student can cost at most one worker; a few more for workers that die idle.
        self.max_spawn = self.jobs + len(to_grade) + 10
        for _ in range(min(self.jobs, len(pending))):
            self._spawn()
        fatal = None
        while True:
            for w in list(self.workers):
                if w.entry is None and pending:
                    entry = pending.popleft()
                    try:
                        w.send(entry)
                    except OSError:  # it died while idle: another takes its place
                        w.entry = None
                        pending.appendleft(entry)
                        self._retire(w)
                        self._spawn()
            busy = [w for w in self.workers if w.entry is not None]
            if not busy:
                break
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            for w in busy:
                if w.conn in ready:
                    answer = w.receive()  # None: it died
                elif w.proc.sentinel in ready or time.monotonic() - w.since > STUDENT_SECONDS:
                    answer = None
                else:
                    continue
                entry, w.entry = w.entry, None
                took = time.monotonic() - w.since
                if answer is None:
                    failed(entry, "评分进程意外退出 / the grading process died", took)
                    self._retire(w)
                    if pending:
                        self._spawn()
                elif answer[0] == "fatal":
                    # This worker could not even start a grader: the student goes back in line.
                    fatal = answer[1]
                    pending.appendleft(entry)
                    self._retire(w)
                elif answer[0] == "error":
                    _err(answer[1])
                    failed(entry, "评分程序出错 / grader error: " + (answer[1].strip().splitlines() or [""])[-1][:200], took)
                else:
                    done(entry, answer[1])
        if pending:  # no worker left to take them
            _err("评分程序无法启动 / the grader could not start:\n" + (fatal or "workers kept dying"))
            for entry in pending:
                failed(entry, "评分程序无法启动 / the grader could not start")
            return 3
        return 0

    def _retire(self, w: Worker) -> None:
        w.stop(signal.SIGKILL)
        w.proc.join(5)
        w.conn.close()
        self.workers.remove(w)

    def stop(self) -> None:
        """Idle workers told to leave, busy ones interrupted; any still
        running after 10 s killed."""
        for w in self.workers:
            if w.entry is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            else:
                w.stop(signal.SIGINT)
        deadline = time.monotonic() + 10
        for w in self.workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.stop(signal.SIGKILL)
                w.proc.join()
            w.conn.close()
        self.workers.clear()
