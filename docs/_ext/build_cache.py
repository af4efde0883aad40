"""What a docs build works out once and uses in several places: the figures
and the grader's samples.

A build reads its pages in several processes (``-j auto``), so a module's
own cache lives in one of them only: each process that read a page with a
``{grader-output}`` graded every sample again. And the project's tests
build both editions side by side, which draw the same figures and grade the
same samples. Here a result is kept in a folder under a key, made by the
first process that asks for it, while any other that asks at the same time
waits for it (a lock per key).

The folder is ``$ATTENTION_DOCS_CACHE`` when it is set (the tests set one
for their two builds: tests/support/docs_site.py), else a temporary folder
made for the build and removed when it ends, so that nothing outlives a
build whose sources may change before the next.
"""

import atexit
import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

ENV = "ATTENTION_DOCS_CACHE"


def _folder() -> Path:
    if ENV not in os.environ:  # not within a build (a test calling an extension): one for this process
        os.environ[ENV] = tempfile.mkdtemp(prefix="docs-cache-")
        atexit.register(shutil.rmtree, os.environ[ENV], True)
    folder = Path(os.environ[ENV])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def _only_me(key: str):
    with open(_folder() / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def json_once(key: str, make: Callable[[], dict]) -> dict:
    """``make()``'s value (JSON), made once for all the processes sharing the folder."""
    path = _folder() / f"{key}.json"
    with _only_me(key):
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
        value = make()
        text = json.dumps(value)  # before anything is written: a value JSON cannot hold fails here
        partial = path.with_suffix(".partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)  # a process killed in the middle leaves no half of it
        return json.loads(text)


def files_once(key: str, make: Callable[[Path], dict]) -> tuple[Path, dict]:
    """A folder of files that ``make(folder)`` writes, with what it returns
    (JSON), made once for all the processes sharing the cache folder."""
    folder = _folder() / key
    done = _folder() / f"{key}.json"
    with _only_me(key):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a make that failed half-way
            folder.mkdir()
            said = json.dumps(make(folder))
            partial = done.with_suffix(".partial")
            partial.write_text(said, encoding="utf-8")
            os.replace(partial, done)
        return folder, json.loads(done.read_text(encoding="utf-8"))


def _start(app) -> None:
    if ENV not in os.environ:
        os.environ[ENV] = tempfile.mkdtemp(prefix="docs-cache-")  # the reading processes inherit it
        app._own_docs_cache = os.environ[ENV]


def _end(app, exception) -> None:
    own = getattr(app, "_own_docs_cache", None)
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)
        if os.environ.get(ENV) == own:
            del os.environ[ENV]


def setup(app):
    app.connect("builder-inited", _start)
    app.connect("build-finished", _end)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
