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
serves nobody else: a JSON line in (``{"argv": [...]}``, ``grade``'s
arguments; its sandbox is the one it was started with, whatever
``--sandbox`` a request names), a JSON line out (``{"code", "stdout",
"stderr"}``). It ends when
its client closes the socket (the kernel or terminal ended), or after
``--idle`` seconds without a request.

    python -m grader.student.warm_server FD [--sandbox auto|require|off] [--idle SECONDS]
"""
import argparse
import contextlib
import io
import json
import socket
import sys
import traceback

IDLE_SECONDS = 15 * 60


def _serve_one(grader, argv: list, started_notes: str) -> dict:
    """One request: ``grade``'s arguments in, what the command says out."""
    from grader.student import grade_options
    from grader.student.grade_command import grade_folder

    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return {"code": 2, "stdout": "", "stderr": "bad request: argv must be a list of strings\n"}
    parser = grade_options.parser()
    try:
        with contextlib.redirect_stderr(io.StringIO()) as said:
            args = parser.parse_args(argv)
    except SystemExit:
        return {"code": 2, "stdout": "", "stderr": said.getvalue()}
    problem = grade_options.usage_problem(args)
    if args.watch:
        problem = "--watch is the command line's own"
    if problem is not None:
        return {"code": 2, "stdout": "", "stderr": f"python -m grader: 错误 / error: {problem}\n"}
    graded = grade_folder(grader, args)
    return {"code": graded.code, "stdout": graded.stdout, "stderr": started_notes + graded.stderr}


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
    try:
        for line in _lines(sock):
            if grader is None:
                reply = {"code": 2, "stdout": "", "stderr": f"python -m grader: 错误 / error: {refusal}\n"}
            else:
                try:
                    reply = _serve_one(grader, json.loads(line).get("argv"), notes)
                    notes = ""
                except Exception:  # noqa: BLE001 - the grader's own fault: said, and the next request is served
                    reply = {"code": 3, "stdout": "", "stderr": traceback.format_exc()}
            sock.sendall(json.dumps(reply).encode() + b"\n")
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
    import os

    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # as python -m grader: tearing torch down takes a noticeable part of a second
