"""The OS sandbox submission processes run in (bubblewrap).

The zygote, and so every child it forks, runs inside one bubblewrap sandbox:
- no network (its own network namespace, with nothing in it);
- its own PID namespace: it cannot see or signal the grader or anything else
  outside, the zygote is its process 1 (which nothing inside can kill), and
  when the sandbox ends everything in it is killed;
- a file system made of read-only system folders, the Python installation,
  the grader package and the folder of private submission copies; a private,
  size-limited /tmp (and /dev/shm), the only places it can write. Nothing
  else: not solutions/, not the checks, not the batch's input or output
  folders, not the user's home.

Without bubblewrap (or where it cannot make namespaces) grading still works
with the process-level limits alone (see ``limits.py``), and says so once.
"""

import functools
import os
import shutil
import subprocess
import sys

from grader.files import COURSE, PROJECT

MODES = ("auto", "require", "off")
TMP_BYTES = 64 * 1024 * 1024
SHM_BYTES = 8 * 1024 * 1024
# /etc holds what the dynamic loader and Python need; the rest of it (e.g.
# /etc/shadow, readable by root) stays out.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "passwd", "group", "nsswitch.conf", "alternatives")


class SandboxUnavailable(Exception):
    pass


def _bwrap() -> str | None:
    return shutil.which("bwrap")


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _python_dirs(project: str) -> list[str]:
    """The folders the interpreter and its packages live in, never the
    project (its solutions, its checks). Installed from the student
    edition's wheel, the project is the site-packages that holds the
    grader (and torch): it has nothing to keep out, and is bound as any."""
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for p in sys.path:
        if p and os.path.isdir(p) and ("site-packages" in p or "dist-packages" in p):
            dirs.add(p)
    project = os.path.realpath(project)
    installed = project == os.path.realpath(PROJECT) and COURSE != PROJECT
    out: list[str] = []
    for d in sorted(dirs, key=len):
        real = os.path.realpath(d)
        if not installed and (real == project or project.startswith(real + os.sep)):
            continue  # an interpreter folder that contains the project would expose it
        if not any(real == o or real.startswith(o + os.sep) for o in out):
            out.append(real)
    return out


def command(project: str, exchange: str) -> list[str]:
    """The bubblewrap command line that prefixes the zygote's."""
    grader_dir = os.path.join(os.path.realpath(project), "grader")
    args = [
        _bwrap() or "bwrap",
        "--die-with-parent",
        "--unshare-all",  # network, PID, IPC, UTS, cgroup namespaces
        "--unshare-user",
        "--disable-userns",  # and no way to make new ones inside
        "--cap-drop",
        "ALL",
        "--new-session",
        # The zygote is the namespace's process 1, not a child of bubblewrap's
        # own: a process in the namespace cannot signal its process 1 with
        # anything it has no handler for (SIGKILL and SIGSTOP included), so a
        # submission cannot kill or stop the zygote. With bubblewrap's reaper
        # as process 1 it could, and the children of the dead zygote went on
        # answering for a moment while the sandbox was torn down: the points
        # of an exercise depended on that race (found by
        # tests/attacks/ex0_weighted_sum__kill_all.py and kill_zygote.py).
        "--as-pid-1",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--mqueue",
        "/dev/mqueue",  # POSIX message queues the zygote can list and remove (leftovers.py)
        "--size",
        str(TMP_BYTES),
        "--tmpfs",
        "/tmp",
    ]
    args += _system_binds()
    binds = _python_dirs(project) + [grader_dir, os.path.realpath(exchange)]
    for path in sorted(set(binds), key=lambda p: p.count(os.sep)):  # parents before children
        args += ["--ro-bind", path, path]
    # The root and /dev are tmpfs mounts bubblewrap makes without a size
    # limit, writable by the sandbox: a submission could fill half the
    # machine's memory with files there (memory limits do not count tmpfs).
    # Read-only once everything is mounted; /tmp (and a small /dev/shm) are
    # the only writable places, each with a cap (found by
    # tests/attacks/ex0_weighted_sum__fill_tmpfs.py).
    args += ["--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/"]
    args += [
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "PYTHONPATH",
        os.path.realpath(project),  # shows only grader/ inside
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--chdir",
        "/tmp",
        "--",
    ]
    return args


@functools.lru_cache(maxsize=None)
def available() -> bool:
    """Whether a sandbox can be made here (bubblewrap present, namespaces allowed)."""
    if not sys.platform.startswith("linux") or _bwrap() is None:
        return False
    try:
        proc = subprocess.run(
            command(PROJECT, os.path.join(PROJECT, "grader")) + ["/usr/bin/true"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


_warned = False


def choose(mode: str, quiet: bool = False) -> bool:
    """Decide whether to sandbox, for ``--sandbox auto|require|off``.

    ``quiet``: say nothing when falling back (a student's copy has no
    solutions or hidden checks to protect, and a student grades their own code)."""
    global _warned
    if mode == "off":
        return False
    if available():
        return True
    if mode == "require":
        raise SandboxUnavailable("没有可用的沙箱（需要 bubblewrap 和用户命名空间）/ no sandbox available (needs bubblewrap and user namespaces)")
    if not _warned and not quiet:
        _warned = True
        print(
            "注意：没有可用的沙箱（bubblewrap），提交的代码只受进程级保护（时间、内存、输出、进程组）。\n"
            "note: no sandbox available (bubblewrap): submission code runs with process-level protection only "
            "(time, memory, output, process group). Install bubblewrap, or use --sandbox off to silence this.",
            file=sys.stderr,
        )
    return False
