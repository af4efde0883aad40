"""Memory and processes counted per submission, not per process.

Resource limits (``limits.py``) hold per process: three forks of a child may
each take the whole memory limit, and root has no limit on the number of
processes at all. Where the grader may create a control group (as root, in a
container or on a machine of its own), the zygote joins one of the grader's
own, so every child of every exercise counts against one memory limit and
one process limit: a grader grades one submission at a time, so that is per
submission, and a batch of N workers can use at most N times the limit.

- cgroup v2 (``memory.max``, ``pids.max``) where the grader's own cgroup
  hands the memory controller down to its children (``cgroup.subtree_control``);
- else cgroup v1 (``memory.limit_in_bytes``, and ``memory.memsw.limit_in_bytes``
  so swap is no way around it; ``pids.max``), one folder in each hierarchy;
- else none: per-process limits, and ``RLIMIT_NPROC`` for a non-root user
  (``child_user``).

What a child writes to a memory file system (/tmp, /dev/shm in the sandbox)
is charged to the group too. The zygote is never the one the kernel kills
when the group runs out: it sets its ``oom_score_adj`` to -1000, and each
child, while still privileged, to 1000.
"""

import os
import secrets
import shutil

PREFIX = "attention-grader-"
# The zygote and bubblewrap, with their threads, are in the group too.
TASKS_ALLOWANCE = 32


def _mounts() -> list[tuple[str, str, str, set]]:
    """(root, mount point, file system type, options) of every cgroup mount."""
    out: list[tuple[str, str, str, set]] = []
    try:
        with open("/proc/self/mountinfo") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        out.append((fields[3], fields[4].replace("\\040", " "), tail[0], set(tail[2].split(","))))
    return out


def _own() -> dict:
    """This process's cgroup path per v1 controller, and "" for v2."""
    own = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f.read().splitlines():
                _, controllers, path = line.split(":", 2)
                for name in controllers.split(",") if controllers else [""]:
                    own[name] = path
    except (OSError, ValueError):
        pass
    return own


def _folder(mount_root: str, mount_point: str, path: str) -> str | None:
    rel = os.path.relpath(path, mount_root) if path.startswith(mount_root) else None
    if rel is None:
        return None
    return os.path.normpath(os.path.join(mount_point, rel))


def _writable(folder: str | None) -> bool:
    return folder is not None and folder != "" and os.path.isdir(folder) and os.access(folder, os.W_OK)


def _places() -> tuple[str, dict] | None:
    """("v2", {"": folder}) or ("v1", {"memory": folder, "pids": folder})
    of this process's own cgroups, where children can be made; None if none."""
    own, mounts = _own(), _mounts()
    for root, point, kind, _ in mounts:
        if kind == "cgroup2" and "" in own:
            folder = _folder(root, point, own[""])
            try:
                with open(os.path.join(folder or "", "cgroup.subtree_control")) as f:
                    enabled = f.read().split()
            except OSError:
                continue
            if "memory" in enabled and _writable(folder):
                return "v2", {"": folder}
    found = {}
    for root, point, kind, options in mounts:
        for name in ("memory", "pids"):
            if kind == "cgroup" and name in options and name in own:
                folder = _folder(root, point, own[name])
                if _writable(folder):
                    found[name] = folder
    return ("v1", found) if "memory" in found else None


class Group:
    """One grader's control group (a folder per hierarchy)."""

    def __init__(self, version: str, folders: dict):
        self.version, self.folders = version, folders

    @property
    def procs(self) -> list[str]:
        """The files a process writes "0" to, to join the group."""
        return [os.path.join(f, "cgroup.procs") for f in self.folders.values()]

    def join(self) -> None:
        for path in self.procs:
            with open(path, "w") as f:
                f.write("0")

    def remove(self) -> None:
        """Once the zygote is gone: remove the folders (the kernel refuses
        while a process is left in them)."""
        for folder in self.folders.values():
            try:
                os.rmdir(folder)
            except OSError:
                pass


def _write(path: str, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def _remove_stale(parent: str) -> None:
    """Groups of graders that were killed before they could remove theirs."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(parent, name))  # fails while anything is in it
            except OSError:
                pass


def make(memory_bytes: int, processes: int) -> Group | None:
    """A new group for this grader's zygote with these limits, or None where
    none can be made (not root, no controllers, a read-only cgroup file
    system)."""
    if os.geteuid() != 0:
        return None
    where = _places()
    if where is None:
        return None
    version, parents = where
    name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    folders = {}
    try:
        for controller, parent in parents.items():
            _remove_stale(parent)
            folder = os.path.join(parent, name)
            os.mkdir(folder)
            folders[controller] = folder
        if version == "v2":
            folder = folders[""]
            _write(os.path.join(folder, "memory.max"), memory_bytes)
            if os.path.exists(os.path.join(folder, "memory.swap.max")):
                _write(os.path.join(folder, "memory.swap.max"), 0)
            if os.path.exists(os.path.join(folder, "pids.max")):
                _write(os.path.join(folder, "pids.max"), processes + TASKS_ALLOWANCE)
        else:
            memory = folders["memory"]
            _write(os.path.join(memory, "memory.limit_in_bytes"), memory_bytes)
            if os.path.exists(os.path.join(memory, "memory.memsw.limit_in_bytes")):
                _write(os.path.join(memory, "memory.memsw.limit_in_bytes"), memory_bytes)
            if "pids" in folders:
                _write(os.path.join(folders["pids"], "pids.max"), processes + TASKS_ALLOWANCE)
    except OSError:
        Group(version, folders).remove()
        return None
    return Group(version, folders)


def join_command(group: Group | None) -> list[str]:
    """A command prefix that joins ``group`` and protects itself from the
    out-of-memory killer, then runs the rest (for a zygote started as a new
    program, the sandboxed one included: bubblewrap and all it starts
    inherit both)."""
    if group is None:
        return []
    script = 'for f; do [ "$f" = -- ] && break; echo 0 > "$f"; shift; done; shift; echo -1000 > /proc/self/oom_score_adj; exec "$@"'
    return [shutil.which("sh") or "/bin/sh", "-c", script, "sh", *group.procs, "--"]


def protect_from_oom_killer() -> None:
    """The zygote: never the process the kernel kills when the group is full."""
    try:
        _write("/proc/self/oom_score_adj", -1000)
    except OSError:
        pass


def first_to_go() -> None:
    """A child, while still privileged: the first the kernel kills, and it
    cannot lower that again once it has dropped its privileges."""
    try:
        _write("/proc/self/oom_score_adj", 1000)
    except OSError:
        pass


def available() -> bool:
    """Whether this process could make a group (as ``make`` does)."""
    return os.geteuid() == 0 and _places() is not None
