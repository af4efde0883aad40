"""``python -m grader`` from an interpreter that has imported torch already.

The attack catalogue starts about 150 graders, and each spends two seconds
of processor time importing torch before it reads its arguments: most of
what a grading costs. A ``WarmStarter`` is one interpreter (the server)
that imports torch (and nbformat, which grading a notebook imports) and
nothing of the project, then forks a grader per
request. The fork runs the command line exactly as ``python -m grader``
does (``runpy``, ``__main__``) with the request's arguments, working
folder, environment, import path and standard streams, in a session of
its own; the grader's own modules are imported afresh in each fork, from
the request's ``PYTHONPATH`` (an attack's copy of the project). The grader
imports torch before it forks its zygote in any case, so nothing a child
inherits differs.

What does differ is what ``/proc/PID/cmdline`` and ``/proc/PID/environ``
show of the grader: the server's. For a program that must be seen as what
it is there (``test_attacks.py``: attacks that find the grader by its
command line) ``run(..., new_interpreter=True)`` starts a new interpreter
from the server instead. Either way the server is the program's parent and
a subreaper: whatever the program leaves behind becomes the server's child
(``children_of(starter.pid)`` finds it) and is reaped there. The server,
and so every program, runs at the niceness it was made with.

    starter = WarmStarter()
    proc = starter.run(["grade", folder, "--json", out], cwd=..., env=..., timeout=600)
    starter.close()

``run`` returns a ``subprocess.CompletedProcess`` read as ``subprocess.run(...,
capture_output=True, text=True)`` reads it: both streams until every
process holding them has let go, text with universal newlines.
"""

import json
import locale
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

# The server: imports torch, then forks one grader per connection and
# sends back its process id, then its wait status. Runs as ``python -c``;
# a fork leaves the loop by returning the request, and the top level runs
# the grader (so no frame of the server's is left around it).
_SERVER = r"""
import ctypes, importlib, json, os, runpy, select, socket, sys
import torch  # the point of it all
import nbformat  # what grading a notebook imports (the attack catalogue's notebook runs): also third-party

for name in sys.argv[3:]:  # the starter's preload: third-party code its programs import
    importlib.import_module(name)
os.nice(int(sys.argv[2]))
# A subreaper: what a program leaves behind comes here, not to init (and is reaped below).
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)

BASE_PATH = sys.path[1:]  # sys.path[0] is '' for python -c


def serve(address):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen(64)
    print("ready", flush=True)
    waiting = {}  # pid -> the connection to answer
    while True:
        readable, _, _ = select.select([listener], [], [], 0.05)
        if readable:
            conn, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
            if not message:  # the test run closes the starter
                return None
            pid = os.fork()
            if pid == 0:
                listener.close()
                for other in [conn, *waiting.values()]:
                    other.close()
                for n, fd in enumerate(fds):
                    os.dup2(fd, n)
                for fd in fds:
                    os.close(fd)
                return json.loads(message)
            for fd in fds:
                os.close(fd)
            conn.send(b"%d" % pid)
            waiting[pid] = conn
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                try:
                    conn.send(b"%d" % status)
                except OSError:
                    pass
                conn.close()


request = serve(sys.argv[1])
if request is None:
    sys.exit(0)
os.setsid()
os.chdir(request["cwd"])
if request["new_interpreter"]:
    os.execve(sys.executable, [sys.executable, "-m", request["module"], *request["args"]], request["env"])
os.environ.clear()
os.environ.update(request["env"])
extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
sys.path[:] = [os.getcwd()] + extra + BASE_PATH  # as python -m with this PYTHONPATH
sys.dont_write_bytecode = bool(request["env"].get("PYTHONDONTWRITEBYTECODE"))
sys.argv = ["-m"] + request["args"]  # runpy puts the module's path first, as -m does
runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
"""


class WarmStarter:
    """One warm interpreter; ``run`` may be called from several threads."""

    _live: set = set()  # the servers not yet closed (bench/suite_cpu.py adds up their programs' time)

    @classmethod
    def live_pids(cls) -> list[int]:
        return [s.pid for s in list(cls._live)]

    def __init__(self, niceness: int = 0, preload: tuple[str, ...] = ()):
        """``niceness``: of the server and so of every program it starts.
        ``preload``: modules (third-party, never the project's) the server
        imports beside torch, because the programs it starts import them."""
        self._dir = tempfile.mkdtemp(prefix="warm-start-")
        self.address = os.path.join(self._dir, "socket")
        # The project comes per request, in PYTHONPATH.
        self._env = env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self._server = subprocess.Popen([sys.executable, "-c", _SERVER, self.address, str(niceness), *preload], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, cwd=self._dir)
        ready = self._server.stdout.readline()
        if ready.strip() != b"ready":
            raise RuntimeError(f"the warm interpreter did not start (exit {self._server.wait()})")
        WarmStarter._live.add(self)

    @property
    def pid(self) -> int:
        """The server's: the parent of every program it runs, and of what they leave behind."""
        return self._server.pid

    def run(self, args: list, *, cwd: str, env: dict, timeout: float, module: str = "grader", new_interpreter: bool = False) -> subprocess.CompletedProcess:
        """``python -m MODULE ARGS`` in ``cwd`` with exactly ``env``, in a new
        session: forked from the warm interpreter, or with ``new_interpreter``
        a new one (as ``subprocess`` starts it, for a program that must be
        seen as such in /proc)."""
        changed = sorted(k for k in set(env) ^ set(self._env) | {k for k in env if env.get(k) != self._env.get(k)} if _at_start(k))
        if changed and not new_interpreter:
            raise ValueError(f"the interpreter reads these at start-up; run it with subprocess instead: {changed}")
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        null = os.open(os.devnull, os.O_RDONLY)
        request = {"module": module, "args": [str(a) for a in args], "cwd": str(cwd), "env": dict(env), "new_interpreter": new_interpreter}
        request = json.dumps(request).encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
            conn.connect(self.address)
            try:
                socket.send_fds(conn, [request], [null, out_w, err_w])
            finally:
                for fd in (null, out_w, err_w):
                    os.close(fd)
            pid = int(conn.recv(64))
            deadline = time.monotonic() + timeout
            try:
                out, err = _read_both(out_r, err_r, deadline)
                conn.settimeout(max(0.1, deadline - time.monotonic()))
                status = int(conn.recv(64))
            except (TimeoutError, socket.timeout):
                _kill_group(pid)
                raise subprocess.TimeoutExpired(["-m", module, *args], timeout) from None
        code = os.waitstatus_to_exitcode(status)
        return subprocess.CompletedProcess(["-m", module, *args], code, _text(out), _text(err))

    def close(self) -> None:
        if self._server.poll() is None:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
                    conn.connect(self.address)
                    conn.send(b"")
                self._server.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self._server.kill()
                self._server.wait()
        WarmStarter._live.discard(self)  # reaped: its time is this process's children's now
        self._server.stdout.close()
        for name in os.listdir(self._dir):
            os.unlink(os.path.join(self._dir, name))
        os.rmdir(self._dir)


def _at_start(name: str) -> bool:
    """Whether the interpreter reads this variable before it runs any code
    (encodings, flags), so that a fork cannot honour a new value; the
    server honours PYTHONPATH and PYTHONDONTWRITEBYTECODE itself."""
    if name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE"):
        return False
    return name.startswith(("PYTHON", "LC_")) or name in ("LANG", "LANGUAGE")


def _read_both(out_r: int, err_r: int, deadline: float) -> tuple[bytes, bytes]:
    """Both pipes to their end (every holder closed it), or TimeoutError."""
    chunks = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as sel:
        for fd in chunks:
            sel.register(fd, selectors.EVENT_READ)
        try:
            while sel.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                for key, _ in sel.select(left):
                    data = os.read(key.fd, 65536)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        sel.unregister(key.fd)
        finally:
            os.close(out_r)
            os.close(err_r)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _text(data: bytes) -> str:
    """As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")
