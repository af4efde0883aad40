"""A smaller share of the processors for the work a session does beside
its tests: the attack catalogue's gradings and the fixtures files make
early (tests/support/early.py).

Nothing waits for that work until the end, while the tests wait for
themselves all along; at an equal share the catalogue's three graders took
half of the tests' processor whenever both wanted one. A thread that calls
``lower_this_thread`` joins a cpu control group that weighs as much as one
process, whatever runs in it: with the tests on one processor it has the
other, and when the tests want both, it gets a third of them. Every process
and thread it starts from then on is in the group too (cgroup v1 counts
each thread in ``tasks``, and a new process inherits its forking thread's
group).

Niceness would not do it: the grader puts each child in a session of its
own, and the kernel ranks sessions (autogroup) before it reads niceness.
Where no group can be made (no cgroup v1 cpu hierarchy, or no right to
write there), the work keeps the tests' share.
"""

import contextlib
import os
import threading
from collections.abc import Callable

from grader.child import cgroup

GROUP = "attention-tests-background"
SHARES = 1024  # as one process (of the root group, or of a session: autogroup)
_lock = threading.Lock()


def _cpu_hierarchy() -> str | None:
    """The folder of this process's cpu group, in the cgroup v1 cpu hierarchy
    (found as the grader finds its memory group: grader/child/cgroup.py)."""
    own = cgroup._own().get("cpu")
    if own is None:
        return None
    for root, point, kind, options in cgroup._mounts():
        if kind == "cgroup" and "cpu" in options:
            return cgroup._folder(root, point, own)
    return None


def group_folder() -> str | None:
    """The background group's folder, made now if need be; None where none can be made."""
    own = _cpu_hierarchy()
    if own is None:
        return None
    folder = os.path.join(own, GROUP)
    with _lock:
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "cpu.shares"), "w") as f:
                f.write(str(SHARES))
        except OSError:
            return None
    return folder


_this_thread = threading.local()


def lower_this_thread() -> bool:
    """Move the calling thread into the background group; False where none can be made."""
    folder = group_folder()
    if folder is None:
        return False
    try:
        with open(os.path.join(folder, "tasks"), "w") as f:
            f.write(str(threading.get_native_id()))
    except OSError:
        return False
    _this_thread.background = True
    return True


def lowered() -> bool:
    """Whether the calling thread does the background's work (``lower_this_thread``)."""
    return getattr(_this_thread, "background", False)


@contextlib.contextmanager
def at_the_tests_share(tree: Callable[[], list[int]]):
    """The processes ``tree()`` lists (a warm grader's server and what is
    under it) at the tests' share while the block runs, then back in the
    background group with what is under them by then: for work whose time
    limit is a few seconds of a busy machine's wall clock, which a small
    share could push past it."""
    own, folder = _cpu_hierarchy(), group_folder()
    if own is None or folder is None:
        yield
        return
    _move(tree(), own)
    try:
        yield
    finally:
        _move(tree(), folder)


def _move(pids: list[int], folder: str) -> None:
    for pid in pids:
        with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(pid))  # gone meanwhile: OSError, and nothing to move


def remove_group() -> None:
    """At the session's end: the group goes once nothing is left in it."""
    own = _cpu_hierarchy()
    if own is not None:
        with contextlib.suppress(OSError):
            os.rmdir(os.path.join(own, GROUP))
