"""The batch's class files: the similarity check (``similar``) and the class
report (``class_report``), made by a process of their own that works while
the class is graded.

The similarity check needs only the submissions, so it runs at once; the
report needs every grade, so it waits for the batch's word (``go``, given as
the last row is written; ``finish`` waits for the report).
Both need large imports (copydetect, matplotlib), which are done while the
class is graded too. The process runs under SCHED_IDLE: it takes only CPU
time the graders leave idle, so it slows the grading by next to nothing, and
what is left when the last student is written is drawing the report.

Messages: the batch sends ``"go"`` (write the report) or closes the pipe
(stop); the process answers ``(written, problems)``: the names written under
OUT, and what failed, each a bilingual line.
"""

import multiprocessing
import os
import signal

_CTX = multiprocessing.get_context("fork")


def _idle() -> None:
    """Only the CPU nobody else wants (Linux); elsewhere the lowest priority."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.nice(19)
        except OSError:
            pass


def _similarity(entries, out: str, options: dict) -> tuple[list, list]:
    from grader.teacher.report import similar

    try:
        similar.write(entries, out, **options)
        return [similar.HTML_NAME], []
    except Exception as exc:  # noqa: BLE001 - the report goes on without it
        for name in (similar.JSON_NAME, similar.HTML_NAME):  # an older run's pairs would pass for this one's
            try:
                os.unlink(os.path.join(out, name))
            except OSError:
                pass
        return [], [f"相似度检查未完成 / the similarity check did not run: {exc}"]


def _report(out: str) -> tuple[list, list]:
    from grader.teacher.report import class_report

    try:
        class_report.write(out)
        return [class_report.HTML_NAME, class_report.MD_NAME], []
    except Exception as exc:  # noqa: BLE001 - the grades stand
        return [], [f"班级报告未写入 / the class report was not written: {exc}"]


def _main(conn, entries, out: str, options: dict, inherited) -> None:
    for c in inherited:  # the batch's ends of other pipes: they must close when the batch does
        c.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the batch decides when this stops
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _idle()
    written, problems = _similarity(entries, out, options)
    try:
        from grader.teacher.report import class_figures

        class_figures.preload()
    except Exception:  # noqa: BLE001 - the report says itself what it could not draw
        pass
    try:
        if conn.recv() != "go":
            return
    except (EOFError, OSError):
        return  # the batch stopped: no report of half a class
    more, failed = _report(out)
    try:
        conn.send((written + more, problems + failed))
    except OSError:
        pass


class ClassFiles:
    """The batch's end of the class-files process."""

    def __init__(self, entries, out: str, inherited, threshold: float | None = None):
        options = {} if threshold is None else {"threshold": threshold}
        self.conn, child = _CTX.Pipe()
        self.proc = _CTX.Process(target=_main, args=(child, entries, out, options, [self.conn, *inherited]), daemon=True)
        self.proc.start()
        child.close()
        self.went = False

    def go(self) -> None:
        """Every grade is in: start the report (``finish`` waits for it)."""
        if not self.went:
            self.went = True
            try:
                self.conn.send("go")
            except OSError:
                pass  # the process died: finish says so

    def finish(self, timeout: float = 300.0) -> tuple[list, list]:
        """Write the report now that every grade is in (unless ``go`` started
        it already); returns the names written under OUT and the problems met."""
        try:
            self.go()
            if self.conn.poll(timeout):
                return self.conn.recv()
            return [], [f"班级报告超时 / the class report took over {timeout:g} s"]
        except (OSError, EOFError) as exc:
            return [], [f"班级报告进程意外退出 / the class report's process died ({exc})"]
        finally:
            self.stop()

    def stop(self) -> None:
        self.conn.close()
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
