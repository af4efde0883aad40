"""The warm grader: a grading process that stays alive between gradings.

``python -m grader grade`` pays for a new interpreter, torch's import,
pytest's start-up and the collection of the checks on every run: seconds,
where the checks themselves take tens of milliseconds. ``check()`` in a
notebook (``grader.student.warm_grader``, its client) asks this process instead. It
holds one ``Grader`` (its zygote has torch imported and is confined as
ever) and grades each request as ``grade`` would, through
``grade_command``: the same report, the same results.json, the same exit
status.

What a grading's code could leave for the next one, and why it cannot:

- Every grading gets fresh children (a ``_Grading`` each, killed with all
  they started when it ends), a fresh secret for the checks' inputs where a
  teacher's grading uses one, and, where the grader clears them (the
  sandbox; root's children's user), cleared /tmp, /dev/shm and IPC.
- Nothing a child does reaches this process's memory (it is not dumpable,
  and the children's seccomp filter forbids tracing it) or the zygote's; a
  zygote that was killed or stopped is replaced (``Zygotes``).
- This process does not take the environment of whoever started it: the
  client starts it with the project's (``warm_grader.project_env``).

It talks over one stream socket, the descriptor its client passed it, and
serves nobody else: a JSON line in (``{"request": {...}}``, a
``GradeRequest``'s fields; its sandbox is the one the server was started
with, whatever a request names), a JSON line out (``{"graded": {...}}``, a
``Graded``'s fields: the exit status, the report, the notes, whether all
passed, and results.json). It ends when its client closes the socket (the
kernel or terminal ended), or after ``--idle`` seconds without a request.
A client that goes while a grading runs (a kernel restarted or killed
mid-check) ends it too: ``_Hangup`` watches the socket, and the grading is
stopped with its zygote and children then, not when the grading would
have ended.

    python -m grader.student.warm_server FD [--sandbox auto|require|off] [--idle SECONDS]
"""

import argparse
import contextlib
import io
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback

from grader.student.request import BadRequest, Graded, GradeRequest, refused

IDLE_SECONDS = 15 * 60


def _serve_one(grader, fields, started_notes: str) -> Graded:
    """One request: a ``GradeRequest``'s fields in, what the command says out."""
    from grader.student.grade_command import grade_folder

    try:
        request = GradeRequest.from_json(fields)
    except BadRequest as exc:
        return refused(str(exc))
    problem = request.problem()
    if problem is not None:
        return refused(problem)
    graded = grade_folder(grader, request)
    graded.notes = started_notes + graded.notes
    return graded


def _request_fields(line: bytes):
    """The request's fields in a line of the protocol (anything else is refused by ``GradeRequest.from_json``)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message.get("request") if isinstance(message, dict) else None


def _lines(sock: socket.socket):
    """The requests, one JSON line each, until the client closes or goes quiet."""
    buffer = b""
    while True:
        while b"\n" not in buffer:
            try:
                chunk = sock.recv(1 << 16)
            except (TimeoutError, OSError):
                return
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        yield line


class _ClientGone(KeyboardInterrupt):
    """Raised in the grading when its client hung up: nobody waits for the
    answer. A KeyboardInterrupt, because that is what the engine stops a
    grading for as Ctrl-C would (its child killed, nothing reported)."""


class _Hangup:
    """Watches the client's end of the socket from a thread of its own. Between
    gradings the reading loop sees the socket close; during one nothing reads
    it, and a grading can take a minute: a hangup then interrupts the grading
    (SIGTERM to the main thread, raised there as ``_ClientGone``), so that
    ``serve`` closes the grader, and its zygote kills the children."""

    GRACE_SECONDS = 10.0  # to close the grader; past it this process ends at once

    def __init__(self, sock: socket.socket):
        self.grading = threading.Event()
        self.main = threading.get_ident()  # serve()'s thread, which grades
        self.poll = select.poll()
        # POLLRDHUP: the peer closed; unlike POLLIN, a request waiting to be read does not wake it.
        self.poll.register(sock.fileno(), select.POLLRDHUP)
        signal.signal(signal.SIGTERM, self._raise)
        threading.Thread(target=self._watch, daemon=True).start()

    def _raise(self, signum, frame):
        if self.grading.is_set():
            raise _ClientGone
        raise SystemExit(0)  # a SIGTERM from anyone else, between gradings: end as when idle

    def _watch(self) -> None:
        while not self.poll.poll():
            pass
        self.grading.wait()  # hung up between gradings: the reading loop ends by itself, unless a grading starts
        # To the main thread: a signal to the process may be taken by this one, and not interrupt the grading's wait.
        signal.pthread_kill(self.main, signal.SIGTERM)
        time.sleep(self.GRACE_SECONDS)
        os._exit(1)  # the grading did not stop: the zygote still ends its children when this socket closes


def serve(sock: socket.socket, sandbox: str = "auto", idle: float = IDLE_SECONDS) -> None:
    from grader.engine.grading import Grader  # first: it forks the zygote before anything else is imported
    from grader.engine.sandbox import SandboxUnavailable

    with contextlib.redirect_stderr(io.StringIO()) as started:
        try:
            grader = Grader(sandbox=sandbox)
        except SandboxUnavailable as exc:
            grader, refusal = None, str(exc)
    notes = started.getvalue()  # said once, with the first grading (a missing sandbox, say)
    sock.settimeout(idle)
    hangup = _Hangup(sock)
    try:
        for line in _lines(sock):
            if grader is None:
                graded = refused(refusal)
            else:
                hangup.grading.set()
                try:
                    graded = _serve_one(grader, _request_fields(line), notes)
                    notes = ""
                except Exception:  # noqa: BLE001 - the grader's own fault: said, and the next request is served
                    graded = Graded(3, notes=traceback.format_exc(), passed=False)
                finally:
                    hangup.grading.clear()
            sock.sendall(json.dumps({"graded": graded.as_json()}).encode() + b"\n")
    except (KeyboardInterrupt, SystemExit, BrokenPipeError):  # the engine re-raises _ClientGone as a KeyboardInterrupt
        pass  # nobody to answer: the grader is closed below
    finally:
        if grader is not None:
            grader.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.student.warm_server")
    p.add_argument("fd", type=int)
    p.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto")
    p.add_argument("--idle", type=float, default=IDLE_SECONDS)
    args = p.parse_args(argv)
    serve(socket.socket(fileno=args.fd), args.sandbox, args.idle)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # as python -m grader: tearing torch down takes a noticeable part of a second
