"""Resource limits for submission processes, and how to clean up after them.

These are the process-level protections: they hold with or without an OS
sandbox around the child.
"""

import ctypes
import math
import os
import resource
import signal
from dataclasses import asdict, dataclass, field

# For the project's own tests only: ATTENTION_TIME_SCALE, a number in (0, 1]
# (default 1), multiplies every default time limit below, so that a test
# waits out shorter limits through the same code (tests/sandbox/test_attacks.py sets
# it for the graders it starts). Students and teachers never set it. It is
# read here alone, when the grading process makes its Limits (at its start):
# a child that runs submission code gets its limits as numbers in its spec,
# from an environment the grader cleared; nothing above 1 is taken, so it can
# only shorten them. The grader's waits that guard its own work rather than
# wait out a submission's (submission_endpoint.WORD_SECONDS for a stopped child,
# batch.STUDENT_SECONDS) keep their length.
TIME_SCALE = "ATTENTION_TIME_SCALE"


def time_scale() -> float:
    """The factor ATTENTION_TIME_SCALE asks for; ValueError unless in (0, 1]."""
    text = os.environ.get(TIME_SCALE, "").strip()
    if not text:
        return 1.0
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not 0 < scale <= 1:  # nan and inf fail this too
        raise ValueError(
            f"{TIME_SCALE}={text!r}: must be a number in (0, 1], the factor that shortens the time limits for tests "
            "(unset it to grade) / 应是 (0, 1] 之间的数，只供项目的测试缩短时间限制（评分时不要设置）"
        )
    return scale


def _seconds(default: float):
    return field(default_factory=lambda: default * time_scale())


def _whole_seconds(default: int):
    return field(default_factory=lambda: max(1, math.ceil(default * time_scale())))


@dataclass(frozen=True)
class Limits:
    import_seconds: float = _seconds(20.0)  # a correct but slow import of a few seconds still passes
    request_seconds: float = _seconds(10.0)  # one call of a student function
    exercise_seconds: float = _seconds(60.0)  # everything one exercise may take, restarts included
    memory_bytes: int = 2 * 1024**3  # on top of what the process maps before the submission runs
    output_bytes: int = 16 * 1024  # captured stdout + stderr kept for feedback; the rest is drained
    cpu_seconds: int = _whole_seconds(120)  # a backstop for the wall-clock limits above
    file_bytes: int = 16 * 1024**2  # largest file a submission may write
    processes: int = 64  # extra processes a submission may start (for root: by its control group, or its own user)

    def to_dict(self) -> dict:
        return asdict(self)


# A child of the grader's own user, the next exercise's child started ahead,
# and one whose exercise is ending: what else that user may have running.
OWN_USER_PROCESSES = 4


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _processes_of_user(uid: int) -> int:
    count = 0
    try:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat(f"/proc/{name}").st_uid == uid:
                        count += 1
                except OSError:
                    pass
    except OSError:
        pass
    return count


def apply(limits: Limits, own_user: bool = False) -> None:
    """Called in the child before any submission code runs. ``own_user``:
    the child runs as a user its grader claimed for itself (``child_user``),
    whose processes are this grader's children alone (a few): no need to
    count them in /proc, a few milliseconds a child."""

    def cap(which, value):
        try:
            soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass  # a limit this platform does not have

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_CPU, limits.cpu_seconds)
    cap(resource.RLIMIT_FSIZE, limits.file_bytes)
    size = _vm_size() if hasattr(resource, "RLIMIT_AS") else 0
    if size:
        cap(resource.RLIMIT_AS, size + limits.memory_bytes)
    if hasattr(resource, "RLIMIT_NPROC") and os.getuid() != 0:
        # RLIMIT_NPROC counts every process of the user (threads too).
        others = OWN_USER_PROCESSES if own_user else _processes_of_user(os.getuid())
        cap(resource.RLIMIT_NPROC, others + limits.processes)


def become_subreaper() -> bool:
    """Orphaned descendants become our children, so nothing a child starts can
    slip away from ``kill_children``. Linux only; elsewhere a no-op."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def children_of(pid: int) -> list[int]:
    """The children of ``pid``: from /proc/PID/task/*/children where the
    kernel keeps that list (a few reads), else by reading every process's
    parent (a scan of all of /proc, some milliseconds on a busy machine)."""
    try:
        found = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(child) for child in f.read().split()]
        return found
    except (OSError, ValueError):
        return _children_by_scan(pid)


def _children_by_scan(pid: int) -> list[int]:
    """The children of ``pid``, from every process's parent in /proc."""
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            found.append(int(name))
    return found


def reap() -> None:
    """Collect every child that has already ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_process(pid: int) -> None:
    """SIGKILL our child ``pid`` and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError, PermissionError):
        pass


def kill_children(keep: frozenset = frozenset(), rounds: int = 200) -> None:
    """SIGKILL every child of this process (but ``keep``) until none is left.

    As a subreaper we inherit the orphans of what we kill, so we go round
    again until a round finds nobody."""
    me = os.getpid()
    found = False
    for _ in range(rounds):
        victims = [pid for pid in children_of(me) if pid not in keep]
        if not victims and found:
            # The kernel's list of children can miss one forked while it was
            # read: before calling it done, look the slow, sure way.
            victims = [pid for pid in _children_by_scan(me) if pid not in keep]
        if not victims:
            break
        found = True
        for pid in victims:
            kill_group(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in victims:
            # SIGKILL cannot be caught or ignored, so waiting is short; its
            # orphans are ours by the time it is reaped.
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    reap()


def kill_strays(keep: frozenset = frozenset(), rounds: int = 200) -> None:
    """SIGKILL every child of this process that is in another session than
    ours (but ``keep``) until none is left.

    The grading process calls this once a submission has killed the zygote:
    the zygote's children and their orphans are then re-parented to the
    grading process (a subreaper too). Every child a zygote forks starts a
    session of its own and no process can join another session, so all they
    left behind is in other sessions, unlike this process's own helpers."""
    me, ours = os.getpid(), os.getsid(0)
    for _ in range(rounds):
        victims = []
        for pid in children_of(me):
            try:
                if pid not in keep and os.getsid(pid) != ours:
                    victims.append(pid)
            except OSError:
                pass  # gone already
        if not victims:
            return
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in victims:
            try:
                os.waitpid(pid, 0)  # only these: other children are not ours to reap
            except ChildProcessError:
                pass
