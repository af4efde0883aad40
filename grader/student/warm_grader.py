"""The client of the warm grader (``grader.student.warm_server``): grading in
well under a second, from a process that must never grade in itself.

A notebook's kernel runs the student's cells, so it must not hold the
grader: ``check()`` asks a grading process of its own instead. Starting
one per call costs seconds (a new interpreter imports torch); a
``WarmGrader`` starts it once, on first use, and keeps it:

- private: the only way in is a socket pair whose one end this process
  holds; nobody else, no other user, can reach it;
- clean: it is started with the project's environment, not this
  process's (a cell that set ``PYTHONPATH``, ``PYTHONSTARTUP`` or an
  ``ATTENTION_*`` variable changes nothing: ``project_env``);
- short-lived: it ends when this process does (its end of the socket
  closes), or after 15 idle minutes, and is started again when next asked;
- replaced when hurt: if it dies or is stopped while grading (code it
  graded may try), a new one grades again, and the grading says so once.

This module imports nothing heavy: the kernel never loads torch or the
engine for it.
"""

import atexit
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import time
import typing

from grader.files import PROJECT
from grader.student.request import Graded, GradeRequest

IDLE_SECONDS = 15 * 60
# A grading's longest honest time: every exercise's budget and then some.
# Past it the grader is taken for wedged, and replaced.
LONGEST_SECONDS = 20 * 60

REPLACED = (
    "评分进程停止了响应（也许被上一次评分的代码停掉或杀掉），已换成新的，这次评分在新进程里重新进行。\n"
    "The warm grader stopped answering (stopped or killed, perhaps by code it graded): "
    "a new one took its place and graded this again."
)

# What the grader takes of this process's environment: where the user's
# files and locale are, never how Python or the grader behave.
_KEPT = ("HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "SYSTEMROOT")


def project_env(extra: dict | None = None, project: str = PROJECT) -> dict:
    """The warm grader's environment: the project on the import path, a
    PATH of the system's and this interpreter's folders, the user's locale,
    home and temporary folder; nothing else of this process's (``PYTHON*``,
    ``ATTENTION_*``, ``LD_*``: a notebook cell may have set them).
    ``extra``: set by the caller itself (the project's tests shorten time
    limits so). ``project``: the course whose grader it runs."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT or k.startswith("LC_")}
    system_path = (os.confstr("CS_PATH") if hasattr(os, "confstr") else None) or "/usr/bin:/bin"
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", system_path])
    env["PYTHONPATH"] = project
    env.update(extra or {})
    return env


class WarmGrader:
    """A warm grader, started on first use; ``grade(request)`` is ``python -m
    grader grade`` without the start-up."""

    def __init__(self, sandbox: str = "auto", idle_seconds: float = IDLE_SECONDS, extra_env: dict | None = None, project: str = PROJECT):
        """``project``: the course folder whose grader runs (this one's by
        default; the project's tests grade with copies)."""
        self.sandbox, self.idle_seconds, self.extra_env, self.project = sandbox, idle_seconds, extra_env, project
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.starts = 0  # how many servers this client has started (tests look)
        self.log: typing.IO[bytes] | None = None  # the server's stderr, a temporary file
        self.hurt = False  # the last server died between gradings, not of its idle time: the next grading says so

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self) -> None:
        """Start the server now (it imports torch while the caller goes on), unless it runs."""
        if self.proc is not None and self.proc.poll() is None:
            return
        # Gone since the last grading: after its idle time (status 0), or
        # killed (by what it graded last, perhaps), which the next grading says.
        self.hurt = self.hurt or (self.proc is not None and self.proc.returncode != 0)
        self.close()
        self.log = tempfile.TemporaryFile()  # what the server says on stderr: shown if it cannot grade
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "grader.student.warm_server", str(theirs.fileno()),
                 "--sandbox", self.sandbox, "--idle", str(self.idle_seconds)],
                pass_fds=[theirs.fileno()],
                cwd=self.project,  # where -m finds grader, whatever this process's folder
                env=project_env(self.extra_env, self.project),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                # Its own session: a Ctrl-C meant for this process does not reach it.
                start_new_session=True,
            )  # fmt: skip
        finally:
            theirs.close()
        self.sock, self.starts = mine, self.starts + 1

    def grade(self, request: GradeRequest) -> Graded:
        """What ``python -m grader grade`` says of ``request``, without the start-up."""
        try:
            graded = self._ask(request)
        except _Hurt:
            self.close()
        else:
            if self.hurt:
                self.hurt = False
                graded.notes = REPLACED + "\n" + graded.notes
            return graded
        # Once more in a new server, and said: a grading that hurts every
        # server it meets gets no third.
        try:
            graded = self._ask(request)
        except _Hurt as exc:
            said = self._said()
            self.close()
            return Graded(3, notes=f"评分没有完成 / grading did not finish: {exc}\n{said}", passed=False)
        self.hurt = False
        graded.notes = REPLACED + "\n" + graded.notes
        return graded

    def _ask(self, request: GradeRequest) -> Graded:
        self.start()
        assert self.sock is not None  # start() made one
        try:
            self.sock.sendall(json.dumps({"request": request.as_json()}).encode() + b"\n")
        except OSError as exc:
            raise _Hurt(f"the grader's socket: {exc}") from None
        reply = self._reply()
        try:
            return Graded.from_json(reply.get("graded") if isinstance(reply, dict) else None)
        except ValueError as exc:
            raise _Hurt(f"the grader's answer was not readable: {exc}") from None

    def _reply(self) -> dict:
        """Wait for the server's answer, watching that it stays alive and running."""
        buffer = b""
        deadline = time.monotonic() + LONGEST_SECONDS
        sock, proc = self.sock, self.proc
        assert sock is not None and proc is not None  # start() made them
        with selectors.DefaultSelector() as sel:
            sel.register(sock, selectors.EVENT_READ)
            try:
                while b"\n" not in buffer:
                    if not sel.select(timeout=0.5):
                        if proc.poll() is not None:
                            raise _Hurt(f"the grader ended (status {proc.returncode})")
                        if _stopped(proc.pid) or time.monotonic() > deadline:
                            raise _Hurt("the grader was stopped or wedged")
                        continue
                    try:
                        chunk = sock.recv(1 << 20)
                    except OSError as exc:
                        raise _Hurt(f"the grader's socket: {exc}") from None
                    if not chunk:
                        raise _Hurt("the grader closed its socket")
                    buffer += chunk
            except KeyboardInterrupt:
                self.close()  # its answer would reach the next question: start afresh next time
                raise
        try:
            return json.loads(buffer.split(b"\n", 1)[0])
        except ValueError:
            raise _Hurt("the grader's answer was not readable") from None

    def _said(self) -> str:
        """The end of what the server wrote on stderr (a traceback, if it could not start)."""
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read()[-3000:].decode("utf-8", "replace")

    def close(self) -> None:
        """End the server (it would end by itself with this process, or when idle)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()  # its zygote and children end when its socket closes
            self.proc.wait()
            self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None


class _Hurt(Exception):
    """The server died, was stopped, or stopped answering."""


def _stopped(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"T", b"t")


_shared: WarmGrader | None = None


def shared() -> WarmGrader:
    """This process's warm grader (``check()``'s), ended when the process exits."""
    global _shared
    if _shared is None:
        _shared = WarmGrader()
        atexit.register(_shared.close)
    return _shared
