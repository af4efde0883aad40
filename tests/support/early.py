"""A test file's costly module fixture, made in the background before the
file's turn comes.

For the first minutes of a run the docs builds, then the attack catalogue's
gradings, keep a processor busy beside the tests; after that the tests run
one at a time, and a processor is idle. A test file that declares
``EARLY = Early(make)`` has ``make(folder, background=True)`` run in a
thread of its own once the catalogue is graded (conftest.py starts it
after collection, in a folder of the session's), at the catalogue's smaller
share of the processors (``background_share``); the file's fixture takes
what it made with ``EARLY.result(folder)``, waiting for it if need be, or
has it made there and then (``background=False``) where nothing started
it: the file run alone, say.

While it is made, the tests go on, and one may change the process's
environment (``monkeypatch.setenv("HOME", ...)``): what ``make`` starts
takes its environment from ``environ()``, the session's as it was when
the background work was started."""

import os
import threading
from collections.abc import Callable
from pathlib import Path

import background_share

_made_early = threading.local()


def environ() -> dict[str, str]:
    """The environment to start programs with: in a thread of ``Early``'s,
    the session's at its start; anywhere else, the process's now."""
    return dict(getattr(_made_early, "environ", None) or os.environ)


class Early:
    def __init__(self, make: Callable[[Path, bool], object]):
        self._make = make
        self._thread: threading.Thread | None = None
        self._value: object = None
        self._error: BaseException | None = None

    def start(self, folder: Path, after: Callable[[], object] = lambda: None) -> None:
        """Make it in a thread, in ``folder``, once ``after()`` has returned."""
        if self._thread is not None:
            return
        environment = dict(os.environ)  # before any test has run

        def run() -> None:
            _made_early.environ = environment
            try:
                after()
                background_share.lower_this_thread()  # the tests come first
                folder.mkdir(parents=True, exist_ok=True)
                self._value = self._make(folder, True)
            except BaseException as exc:  # noqa: BLE001 - raised in the fixture that asks for it
                self._error = exc

        self._thread = threading.Thread(target=run, name="early", daemon=True)
        self._thread.start()

    def result(self, folder: Path) -> object:
        """What ``make`` made: in the background if it was started, else now in ``folder``."""
        if self._thread is None:
            return self._make(folder, False)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
