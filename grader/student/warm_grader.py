"""The client of the warm grader (``grader.student.warm_server``): grading in
well under a second, from a process that must never grade in itself.

A notebook's kernel runs the student's cells, so it must not hold the
grader: ``check()`` asks a grading process of its own instead. Starting
one per call costs seconds (a new interpreter imports torch); a
``WarmGrader`` starts it once, on first use, and keeps it:

- private: the only way in is a socket pair whose one end this process
  holds; nobody else, no other user, can reach it;
- clean: it is started with the project's environment, not this
  process's (a cell that set ``PYTHONPATH``, ``PYTHONSTARTUP``, ``HOME``
  or an ``ATTENTION_*`` variable changes nothing: ``project_env``), and
  without the user's site-packages, where a cell can write a
  ``usercustomize.py`` or a ``.pth`` file that Python runs at start;
- one grading at a time: calls from several threads wait their turn, and
  each gets its own answer;
- short-lived: it ends when this process does (its end of the socket
  closes, even in the middle of a grading), or after 15 idle minutes, and
  is started again when next asked;
- replaced when hurt: if it dies or is stopped while grading (code it
  graded may try), a new one grades again, and the grading says so once.

This module imports nothing heavy: the kernel never loads torch or the
engine for it.
"""

import atexit
import importlib.util
import json
import os
import selectors
import site
import socket
import subprocess
import sys
import tempfile
import threading
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

# What the grader takes of this process's environment: who the user is and
# their locale and temporary folder, never how Python or the grader behave.
# HOME is not among them: it is the account's (``_home``).
_KEPT = ("USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "SYSTEMROOT")


def project_env(extra: dict | None = None, project: str = PROJECT) -> dict:
    """The warm grader's environment: the project on the import path, a
    PATH of the system's and this interpreter's folders, the account's home,
    the user's locale and temporary folder; nothing else of this process's
    (``PYTHON*``, ``ATTENTION_*``, ``LD_*``, ``HOME``: a notebook cell may
    have set them). Python is told to leave the user's site-packages out
    (``PYTHONNOUSERSITE``; the zygote and children inherit it), unless the
    grader or torch is installed there (``pip install --user``), where a cell
    could as well rewrite the grader itself. ``extra``: set by the caller
    itself (the project's tests shorten time limits so). ``project``: the
    course whose grader it runs."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT or k.startswith("LC_")}
    system_path = (os.confstr("CS_PATH") if hasattr(os, "confstr") else None) or "/usr/bin:/bin"
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", system_path])
    env["PYTHONPATH"] = project
    home = _home()
    if home is not None:
        env["HOME"] = home
    if not _installed_in_user_site(project):
        env["PYTHONNOUSERSITE"] = "1"
    env.update(extra or {})
    return env


def _home() -> str | None:
    """The account's home folder, from the password database: not ``$HOME``,
    which a cell can point at a folder of its own making."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):  # no such database (Windows), or a user without an entry (docker run -u 1234)
        return os.environ.get("HOME")


def _installed_in_user_site(project: str) -> bool:
    """Whether the grader (``project``) or torch lives in the user's site-packages."""
    user_site = os.path.realpath(site.getusersitepackages())
    torch = importlib.util.find_spec("torch")
    places = [project] + ([torch.origin] if torch is not None and torch.origin else [])
    return any(os.path.realpath(p).startswith(user_site + os.sep) for p in places)


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
        self.lock = threading.Lock()  # one request on the socket at a time: a second thread's would take the first's answer

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
        """What ``python -m grader grade`` says of ``request``, without the
        start-up. Calls from several threads take turns."""
        with self.lock:
            return self._grade(request)

    def _grade(self, request: GradeRequest) -> Graded:
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
