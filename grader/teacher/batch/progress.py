"""The batch's progress line: students done / total, failures so far and
time left, redrawn in place on a terminal, one line per student otherwise."""

import sys


class Progress:
    """students done / total, failures so far, time left: redrawn in place on
    a terminal, one line per student otherwise."""

    def __init__(self, total: int, done: int, to_grade: int, jobs: int = 1, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.total, self.done, self.failed = total, done, 0
        self.to_grade, self.graded, self.jobs = to_grade, 0, max(1, min(jobs, to_grade))
        self.seconds = 0.0  # grading time of the students so far, as the workers measured it
        self.shown = False

    def _eta(self) -> str:
        left = self.to_grade - self.graded
        if left <= 0:
            return "0:00"
        if not self.graded:
            return "?"
        # Students still to come, shared by the workers, at the mean time per student so far.
        secs = int(-(-left // self.jobs) * self.seconds / self.graded + 0.5)
        return f"{secs // 60}:{secs % 60:02d}"

    def _status(self) -> str:
        return f"{self.done}/{self.total} · 失败 / failed {self.failed} · 剩余约 / about {self._eta()} left"

    def line(self, text: str) -> None:
        """A line of its own (a skipped student, a warning)."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        if self.tty and self.shown:
            self._bar()
        self.stream.flush()

    def _bar(self) -> None:
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {self._status()}\x1b[K")
        self.shown = True

    def start(self) -> None:
        if self.tty:
            self._bar()
            self.stream.flush()

    def student(self, student_id: str, summary: str, failed: bool, seconds: float = 0.0) -> None:
        self.done += 1
        self.graded += 1
        self.failed += failed
        self.seconds += seconds
        if self.tty:
            if failed:
                self.line(f"✗ {student_id}: {summary}")
            self._bar()
        else:
            self.stream.write(f"[{self.done}/{self.total}] {student_id}: {summary} · {self._status()}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()
