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
"""
import ctypes
import multiprocessing
import os
import signal
import tempfile
import time
import traceback

from grader.engine import report
from grader.exercises import IDS

CTX = multiprocessing.get_context("fork")


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
            from grader.engine.grading import Grader, Job

            options = {} if sandbox is None else {"sandbox": sandbox}
            grader = Grader(many=True, inputs_seed=inputs_seed, **options)
        except Exception:  # noqa: BLE001 - reported, and this worker stops
            conn.send(("fatal", traceback.format_exc(limit=5)))
            return
        def students():
            while not interrupted:
                task = conn.recv()
                if task is None:
                    return
                student_id, folder, display = task
                yield Job(folder, display, key=student_id)

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
        if self.proc.is_alive():
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
