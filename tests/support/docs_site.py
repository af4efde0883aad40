"""Helpers for the docs tests: where the docs are, how they are parsed and built.

The builds are slow (the figures, the grader's samples: over a minute each,
much of it on one core), so each edition is built once per session and shared
by every test that needs it. Right after collection, conftest.py calls
``start_builds``: the editions that the selected tests' files build are
built in the background, one after the other (the student's first: its tests
come first), at low priority, into the session's temporary folder, and fill
the processor the foreground tests leave idle. ``built_site`` waits for its
edition's background build, or, when none was started (a test run by
itself, say), builds it there and then; ``wait_for_builds`` waits for them
all (the attack catalogue starts after them). At the end of the session
``stop_builds`` kills a background build that no test waited for.
The two editions draw the same figures and grade the same samples: they
share a cache folder in the session's temporary folder, and whichever build
comes to one first makes it (docs/_ext/build_cache.py); so does the pages'
code that tests run in their own process, once the builds are started.
"""

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from environments import environment

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXT = DOCS / "_ext"
for path in (EXT, ROOT / "solutions", DOCS, ROOT):
    if str(path) not in sys.path:
        sys.path.append(str(path))

import build_cache  # noqa: E402 - docs/_ext, on the path only now

EDITIONS = ("student", "teacher")
# How much a background build gives way to the tests: at 15 it gets a few
# percent of a core the tests want, and all of one they leave idle.
BACKGROUND_NICENESS = 15
BUILD_TIMEOUT = 1800


@dataclass
class _Background:
    """A build started by ``start_builds``: its process, its site, its output."""

    process: subprocess.Popen
    out: Path
    stdout: Path
    stderr: Path


_built: dict[str, Path] = {}
_background: dict[str, _Background] = {}  # an edition's build once it has started
_queued: dict[str, threading.Event] = {}  # an edition to build in the background: set once it has started
_chain: list[threading.Thread] = []  # the thread that starts them one after the other
_lock = threading.Lock()  # _background and _queued, between the chain and the tests
_stopping = threading.Event()
_deferred: list = []  # (items, tmp_root) for the first built_site, see defer_builds


def sources() -> list[Path]:
    """Every Markdown page of the site."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def _sphinx_command(srcdir: Path, outdir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q", "-j", "auto", "-d", str(outdir.parent / f"doctrees-{outdir.name}"), *extra, str(srcdir), str(outdir)]


def _env() -> dict[str, str]:
    return environment(ROOT)


def _edition_env(tmp_root: Path) -> dict[str, str]:
    """An edition's build: the sources are the same for both, and so is what they work out."""
    return {**_env(), build_cache.ENV: str(Path(tmp_root) / "docs-cache")}


def _edition_options(edition: str) -> list[str]:
    return ["-t", "teacher"] if edition == "teacher" else []


def sphinx_build(srcdir: Path, outdir: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(_sphinx_command(srcdir, outdir, *extra), cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env=env or _env())


def editions_needed(items) -> set[str]:
    """The editions that the test items' files build: a file that calls
    ``built_site`` needs the editions it names in the call (both if it names
    none there). An edition left out is still built, in the foreground."""
    needed = set()
    for path in {item.path for item in items if getattr(item, "path", None) and item.path.suffix == ".py"}:
        needed |= editions_needed_by(path)
    return needed


def waits_for(path: Path) -> int:
    """How late in the session a test file should run, by the builds it
    waits for: 0 none, 1 the student's (the quicker), 2 the teacher's. Run
    so, the files that need no build fill the time the builds take."""
    needed = editions_needed_by(path)
    return 2 if "teacher" in needed else 1 if needed else 0


def editions_needed_by(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    if "built_site(" not in text:
        return set()
    return {e for e in EDITIONS if f'built_site("{e}"' in text} or set(EDITIONS)


def _lower_priority() -> None:
    """In the build's new session, before sphinx starts. Where the kernel
    groups processes by session (autogroup), a process's niceness only ranks
    it within its session: the session's own niceness is what ranks the
    build against the tests."""
    os.nice(BACKGROUND_NICENESS)
    with contextlib.suppress(OSError):
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(BACKGROUND_NICENESS))


def start_builds(items, tmp_root: Path) -> None:
    """Build, in the background, the editions that ``items`` need (see
    ``editions_needed``), into ``tmp_root/docs-background``: one after the
    other, the student's first. Side by side, the two would share the
    processor the tests leave idle, and the student's build, the first one
    a test waits for, would end later. Each build is a process group of its
    own, so that ``stop_builds`` can kill it with its workers."""
    if _chain or _built:
        return
    editions = sorted(editions_needed(items), key=EDITIONS.index)
    if not editions:
        return
    folder = Path(tmp_root) / "docs-background"
    folder.mkdir(exist_ok=True)
    env = _edition_env(tmp_root)
    for edition in editions:
        _queued[edition] = threading.Event()
    chain = threading.Thread(target=_build_in_turn, args=(editions, folder, env), name="docs-builds", daemon=True)
    _chain.append(chain)
    chain.start()
    atexit.register(stop_builds)  # in case the session ends without its pytest_sessionfinish
    # The pages' code that tests run in this process (test_docs_sources:
    # every example, teaching.md's grading of the whole catalogue among
    # them) shares the builds' cache: each result is worked out once a
    # session, by whichever comes to it first.
    os.environ[build_cache.ENV] = env[build_cache.ENV]


def _build_in_turn(editions: list[str], folder: Path, env: dict[str, str]) -> None:
    """The chain's thread: start each edition's build once the one before has ended."""
    try:
        for edition in editions:
            out = folder / edition
            stdout, stderr = folder / f"{edition}.stdout", folder / f"{edition}.stderr"
            with _lock:
                if _stopping.is_set():
                    break
                with open(stdout, "w", encoding="utf-8") as out_file, open(stderr, "w", encoding="utf-8") as err_file:
                    process = subprocess.Popen(
                        _sphinx_command(DOCS, out, *_edition_options(edition)),
                        cwd=ROOT,
                        stdin=subprocess.DEVNULL,
                        stdout=out_file,
                        stderr=err_file,
                        env=env,
                        preexec_fn=_lower_priority,
                        start_new_session=True,
                    )
                _background[edition] = _Background(process, out, stdout, stderr)
                _queued[edition].set()
            process.wait()
    finally:
        with _lock:
            for started in _queued.values():
                started.set()  # stopped, or a build could not start: whoever waits for an edition never started builds it


def wait_for_builds() -> None:
    """Return once the background builds have ended (at once if none were started)."""
    for chain in list(_chain):
        chain.join()


def _kill(build: _Background) -> None:
    """Kill the build with its workers. Only while its process is not yet
    reaped: till then no other process can be given its group id."""
    if build.process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(build.process.pid, signal.SIGKILL)
        build.process.wait()


def stop_builds() -> None:
    """Kill the background builds that no test waited for (the session
    stopped early, or its remaining tests did not need them), and start no
    more."""
    _stopping.set()
    with _lock:
        builds = list(_background.values())
        _background.clear()
    for build in builds:
        _kill(build)
    wait_for_builds()


def _finish(edition: str) -> tuple[Path, subprocess.CompletedProcess] | None:
    """Wait for the edition's background build (None if it was never
    started: the builds were stopped). A test waits for it now, so it gets
    back the tests' own priority (where the system lets us raise it)."""
    with _lock:
        started = _queued.pop(edition)
    started.wait()  # till the build before it has ended
    with _lock:
        build = _background.pop(edition, None)
    if build is None:
        return None
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PGRP, build.process.pid, os.getpriority(os.PRIO_PROCESS, 0))
    with contextlib.suppress(OSError), open(f"/proc/{build.process.pid}/autogroup", "w") as f:
        f.write("0")  # the session's niceness too (see _lower_priority)
    try:
        build.process.wait(timeout=BUILD_TIMEOUT)
    finally:
        _kill(build)  # timed out or interrupted (Ctrl-C): leave no sphinx behind
    return build.out, subprocess.CompletedProcess(
        build.process.args, build.process.returncode, build.stdout.read_text(encoding="utf-8", errors="replace"), build.stderr.read_text(encoding="utf-8", errors="replace")
    )


def defer_builds(items, tmp_root: Path) -> None:
    """Under pytest-xdist every process collects every test, and which one
    gets the docs' group is known only when it runs them: there the first
    ``built_site`` starts the builds ``items`` need."""
    _deferred[:] = [items, tmp_root]


def built_site(edition: str, tmp_path_factory) -> Path:
    """The student or teacher edition, built with -W into a temporary folder
    once per session: by its background build if ``start_builds`` started
    one, else here and now."""
    if _deferred:
        start_builds(*_deferred)
        _deferred.clear()
    if edition not in _built:
        finished = _finish(edition) if edition in _queued else None
        if finished is not None:
            out, proc = finished
        else:
            out = tmp_path_factory.mktemp("docs") / edition
            proc = sphinx_build(DOCS, out, *_edition_options(edition), env=_edition_env(tmp_path_factory.getbasetemp()))
        assert proc.returncode == 0, f"the {edition} docs build failed:\n{proc.stdout[-5000:]}\n{proc.stderr[-10000:]}"
        _built[edition] = out
    return _built[edition]


def markdown_tokens(text: str):
    """The page's block tokens, parsed the way MyST parses it."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions={"colon_fence"}), RendererHTML).parse(text)


@contextlib.contextmanager
def serve(root: Path):
    """Serve a built site over HTTP on the loopback address: yields (root, its address)."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            # A browser that moves to the next page drops what it no longer
            # needs mid-answer: that is no error of the site's.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
