"""What runs inside a submission's child process.

The child waits for the grader's word to begin, imports one exercise file,
says whether that worked, then answers the grader's requests until the grader
hangs up. It never decides anything: every answer crosses back as JSON and raw
tensor bytes (``protocol``: nothing is unpickled) and is judged by the grader.

What the child does before the submission's code runs is of two kinds.
Conveniences (its streams, its import path, its environment) the submission
can undo, which spoils only its own answers. The confinement
(``confine_child``: first in line for the out-of-memory killer, the grader's
own unprivileged user where the grader is root without a sandbox, resource
limits, no capabilities, the seccomp filter) nothing it does can undo.
"""

import io
import linecache
import os
import sys
import tempfile
import traceback
import types

import torch

from grader.child import cgroup, child_user, confine, limits, ops, protocol, standins

_MAX_TEXT = 2000


def _text(obj) -> str:
    try:
        return str(obj)[:_MAX_TEXT]
    except Exception:  # noqa: BLE001 - a submission's __str__ may itself raise
        return "<unprintable>"


def describe(exc: BaseException, filename: str) -> dict:
    """A plain description of an exception: its type, message and the lines
    of the submission file it passed through."""
    info: dict = {"type": type(exc).__name__, "message": _text(exc), "lines": []}
    if isinstance(exc, SyntaxError):
        info["lines"] = [[int(exc.lineno or 0), _text(exc.text or "").rstrip()]]
        info["message"] = _text(exc.msg)
        return info
    if isinstance(exc, SystemExit):
        info["message"] = f"exit({_text(exc.code)})"
    frames = [(f.filename, f.lineno, f.line) for f in traceback.extract_tb(exc.__traceback__)]
    if isinstance(exc, ops.BackwardFailed):
        frames = exc.frames  # the forward lines the failing gradient traces back to
    for name, lineno, line in frames:
        if name == filename:
            info["lines"].append([int(lineno or 0), _text(line or "")])
    info["lines"] = info["lines"][-5:]
    return info


def _plain(value):
    """Keep exact tensors and numbers; name anything else instead of sending it."""
    if type(value) is torch.Tensor:
        return value.detach().clone()
    if type(value) in (int, float, bool):
        return value
    if value is None:
        return None
    return {"bad_type": _text(ops.type_name(value))}


def _plain_arg(value):
    """An argument a stand-in was built with: a number as it is, anything else by name."""
    if value is None or type(value) in (int, float, bool):
        return value
    return _text(repr(value))[:60]


def _answer(module, request: dict, filename: str) -> dict:
    """One request of a batch: its answer, or the error it raised (the other
    requests of the batch are still answered: a check that looks only at
    some of them fails only on those)."""
    try:
        if request.get("op") == "batch":
            raise ValueError("a batch inside a batch")
        return _plain_response(ops.execute(module, request), bool(request.get("tuple_out")))
    except Exception as exc:  # noqa: BLE001 - any error of the submission's is its answer
        return {"error": _trimmed(describe(exc, filename))}


def _trimmed(info) -> dict:
    """An error of a batch's request, kept short: a batch answers several at
    once, and their descriptions together must still fit one message."""
    try:
        lines = [[int(n), _text(line)[:200]] for n, line in list(info.get("lines", []))[:5]]
        return {"type": _text(info.get("type"))[:200], "message": _text(info.get("message"))[:_MAX_TEXT], "lines": lines}
    except Exception:  # noqa: BLE001 - a description the submission replaced may be anything
        return {"type": "Exception", "message": "<an error that could not be described>", "lines": []}


def _plain_response(response: dict, tuple_out: bool = False) -> dict:
    if "value" in response:
        plain = {"value": _plain(response["value"]), "args": [_plain(a) for a in response.get("args", [])], "shares": [v is True for v in response.get("shares", [])]}
        if "grads" in response:  # ops.call_backward
            plain["grads"] = [_plain(g) for g in response["grads"]]
        return plain
    response = dict(response)
    if "outs" in response:
        # Where the check asked for a tuple (ops.module's tuple_out), such as
        # (logits, loss), ops made it a list; elsewhere a list is a wrong answer.
        response["outs"] = [[_plain(v) for v in o] if tuple_out and type(o) is list else _plain(o) for o in response["outs"]]
        response["input_grad"] = _plain(response["input_grad"])
        response["grads"] = {k: _plain(v) for k, v in response["grads"].items()}
    if "parts" in response:
        response["parts"] = [[path, contract, {k: _plain_arg(v) for k, v in args.items()}] for path, contract, args in response["parts"]]
    return response


_KEEP_PATH: list[str] = []


def prepare() -> None:
    """Called once in the zygote, before it forks any child: what every child
    needs is done here, not in each of them (importing this module alone cost
    a child about 10 ms of CPU).

    The submission sees its own folder and the Python installation, not the
    project: ``import solutions`` must not find the reference."""
    _KEEP_PATH[:] = child_user.interpreter_paths()
    confine.prepare()
    for name in list(sys.modules):
        if name == "solutions" or name.startswith("solutions.") or name.startswith("checks"):
            del sys.modules[name]


def reach_through(reach: child_user.Reach) -> None:
    """Called in the zygote once its import paths go through ``reach``'s
    descriptors: so do the children's."""
    _KEEP_PATH[:] = [reach.map(p) for p in _KEEP_PATH]


def _isolate_imports(private_dir: str) -> None:
    if not _KEEP_PATH:
        prepare()  # a child of a zygote that did not call it
    sys.path[:] = [private_dir] + _KEEP_PATH


def _own_home(fallback: str) -> str:
    """A folder of the child's own user in /tmp (``fallback``, its read-only
    copy, where /tmp cannot be written: the code still runs, it only cannot
    write files)."""
    try:
        return tempfile.mkdtemp(prefix="attention-child-", dir="/tmp")
    except OSError:
        return fallback


def confine_child(user: child_user.ChildUser | None, process_limits: limits.Limits | None = None) -> list[str]:
    """Everything that confines a child, in order; nothing after it needs
    what it takes away. Returns what could not be done here."""
    cgroup.first_to_go()  # while still privileged: it cannot lower this again
    if user is not None:
        child_user.become(user)
    limits.apply(process_limits or limits.Limits(), own_user=user is not None)
    return confine.confine()


def main(spec: dict, req_fd: int, resp_fd: int, out_fd: int, user: child_user.ChildUser | None = None, reach=()) -> None:
    """Never returns: the child ends with ``os._exit``. ``user``: the user it
    becomes (root without a sandbox); ``reach``: the zygote's descriptors for
    the interpreter's folders that user cannot reach by path (kept at their
    numbers, from ``child_user.REACH_FD`` up)."""
    try:
        os.setsid()  # its own process group, so the grader can kill all it starts at once
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.dup2(req_fd, 3)
        os.dup2(resp_fd, 4)
        kept = sorted(reach)
        for low, high in zip([5] + [fd + 1 for fd in kept], kept + [1 << 16]):
            os.closerange(low, high)
        _fresh_streams()
        req_fd, resp_fd = 3, 4
        torch.set_num_threads(1)
        confine_child(user, limits.Limits(**spec["limits"]))
    except BaseException:  # noqa: BLE001 - nothing to report to yet
        os._exit(70)

    # A child may be started while another exercise's checks run: its
    # submission code waits for the grader's word, given once that exercise is
    # over, so that no import runs during another exercise's checks. The word
    # names the folder to import from: without the sandbox, where a child can
    # write into its folder, one written just now, so nothing an earlier
    # exercise's code did reaches it; in the sandbox, where no child can write
    # it, one copy for the whole submission.
    try:
        word = protocol.receive(req_fd)
        private_dir = word["private_dir"]
        answered = word.get("earlier") is True  # the grading process answers the earlier exercises' functions
        protocol.send(resp_fd, {"heard": True})  # before any submission code: the grader knows this child is not stopped
        os.chdir(private_dir)
        os.environ.clear()
        # TMPDIR: the tempfile module writes into the exercise's own folder,
        # not into a /tmp that, without the sandbox, is the machine's. The
        # grader's own user cannot write its copy of the files: it gets a
        # folder of its own in /tmp, removed with all it owns when the
        # exercise ends (leftovers.clear_owned).
        home = private_dir if user is None else _own_home(private_dir)
        os.environ.update({"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8"})
        tempfile.tempdir = None  # computed again from TMPDIR, not inherited from the zygote
        _isolate_imports(private_dir)
    except BaseException:  # noqa: BLE001 - the grader hung up before this exercise began
        os._exit(0)
    exercise_id, filename = spec["exercise"], spec["display_name"]
    path = os.path.join(private_dir, exercise_id + ".py")
    module = types.ModuleType(exercise_id)
    module.__file__ = path
    try:
        # utf-8-sig: a byte-order mark (some Windows editors write one) is not
        # part of the code; compile() would call it an invalid character.
        with open(path, encoding="utf-8-sig") as f:
            source = f.read()
        # Tracebacks name the file as the student knows it, with its lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        # Every earlier exercise's module is the grader's (standins.py), not
        # the student's file beside this one: a mistake there costs its own points only.
        standins.install_siblings(exercise_id, _asker(req_fd, resp_fd) if answered else None)
        sys.modules[exercise_id] = module
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        _safe_send(resp_fd, {"ready": False, "error": describe(exc, filename)})
        os._exit(0)
    _safe_send(resp_fd, {"ready": True})

    while True:
        try:
            request = protocol.receive(req_fd)
        except BaseException:  # noqa: BLE001 - the grader hung up
            os._exit(0)
        response: dict
        try:
            if request.get("op") == "batch":
                response = {"batch": [_answer(module, r, filename) for r in request["requests"]]}
            else:
                response = _plain_response(ops.execute(module, request), bool(request.get("tuple_out")))
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too: any error of the submission's is its answer
            response = {"error": describe(exc, filename)}
        response["id"] = request.get("id")
        _safe_send(resp_fd, response)


def _asker(req_fd: int, resp_fd: int):
    """How the grader's stand-in of an earlier exercise's function gets its
    answers (``standins.asking``): it asks the grading process, on the
    child's own pipes, while the request that called it is under way."""

    def ask(key, template, tensors, grad):
        _safe_send(resp_fd, {"earlier": key, "template": template, "tensors": tensors, "grad": grad})
        answer = protocol.receive(req_fd)
        if not isinstance(answer, dict) or "error" in answer:
            error = answer.get("error") if isinstance(answer, dict) else None
            raise RuntimeError(f"{key[1]}: {error or 'no answer'}")
        if grad is None:
            return answer["value"]
        return tuple(answer["grads"])

    return ask


def _fresh_streams() -> None:
    """sys.stdout and sys.stderr anew, over descriptors 1 and 2 (now the
    drain pipe), line by line as in a terminal. The ones inherited from the
    zygote were made for its own output: block-buffered (what a submission
    printed stayed in the buffer and was lost when the child ended with
    os._exit or was killed: found by running tests/attacks/ in the sandbox),
    or not even on descriptor 1 where the grader's process had redirected
    them (pytest's capture, a notebook): prints went elsewhere or failed."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True)
        setattr(sys, name, stream)


def _flush() -> None:
    """Push out a partial line (``print(..., end="")``) before answering."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a submission may have replaced it
            pass


def _safe_send(fd: int, message: dict) -> None:
    _flush()
    try:
        protocol.send(fd, message)
    except BaseException as exc:  # noqa: BLE001 - e.g. a result the protocol cannot carry (a tensor of an unknown dtype)
        try:
            protocol.send(fd, {"id": message.get("id"), "error": {"type": type(exc).__name__, "message": "the result could not be sent back: " + _text(exc), "lines": []}})
        except BaseException:  # noqa: BLE001 - not even the error can be sent: the child ends, which the grader reports
            os._exit(71)
