"""A smaller share of the processors for the work a session does beside
its tests: the attack catalogue's gradings and the fixtures files make
early (tests/support/early.py).

Nothing waits for that work until the end, while the tests wait for
themselves all along; at an equal share the catalogue's three graders took
half of the tests' processor whenever both wanted one. A thread that calls
``lower_this_thread`` joins a cpu control group with half the weight of a
process: with the tests on one processor it still has the other, and when
the tests want both, it gets about a fifth of them. Every process and
thread it starts from then on is in the group too (cgroup v1 counts each
thread in ``tasks``, and a new process inherits its forking thread's group).

Niceness would not do it: the grader puts each child in a session of its
own, and the kernel ranks sessions (autogroup) before it reads niceness.
Where no group can be made (no cgroup v1 cpu hierarchy, or no right to
write there), the work keeps the tests' share.
"""

import contextlib
import os
import threading

GROUP = "attention-tests-background"
SHARES = 512  # a process's is 1024
_lock = threading.Lock()


def _cpu_hierarchy() -> str | None:
    """The folder of this process's cpu group, in the cgroup v1 cpu hierarchy."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            mounts = f.read().splitlines()
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            own = f.read().splitlines()
    except OSError:
        return None
    path = next((p for _, names, p in (line.split(":", 2) for line in own) if "cpu" in names.split(",")), None)
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] == "cgroup" and "cpu" in tail[2].split(",") and path is not None:
            root = fields[3]
            below = os.path.relpath(path, root) if path.startswith(root) else None
            if below is not None:
                return os.path.normpath(os.path.join(fields[4], below))
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
    return True


def to_the_tests(pid: int) -> None:
    """Give process ``pid`` the tests' share again: the session's own server
    that forks programs for the tests (``conftest.python_m_grader``) may be
    started by a background thread, and what it forks later is the tests'."""
    own = _cpu_hierarchy()
    if own is not None:
        with contextlib.suppress(OSError), open(os.path.join(own, "cgroup.procs"), "w") as f:
            f.write(str(pid))


def remove_group() -> None:
    """At the session's end: the group goes once nothing is left in it."""
    own = _cpu_hierarchy()
    if own is not None:
        with contextlib.suppress(OSError):
            os.rmdir(os.path.join(own, GROUP))
