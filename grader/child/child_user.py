"""Who a submission's child runs as where the grader is root and there is no
sandbox (Gradescope's containers run as root and usually cannot make
namespaces, so bubblewrap cannot run there).

A child that kept uid 0, even without a capability, would still own every
file root owns (the solutions, the hidden checks, the ``run_autograder``
script bash is reading) and could signal every process of root's. So there
every child becomes an unprivileged user of the grader's own (``become``):
a uid and gid no account of the machine has, no supplementary group, its own
``HOME`` and ``TMPDIR``. The kernel then keeps it from:

- reading what only root may read: the grader makes its exchange folder
  traversable but not listable and the submission's copy readable but not
  writable, and says so (``probe``) where this user could still read the
  solutions or the hidden checks (every user may: ``run_autograder`` makes
  them root's alone);
- signalling the grader, the zygote or any root process, and writing
  root's files;
- starting more than ``Limits.processes`` processes (``RLIMIT_NPROC``
  counts per uid, and no longer exempts it).

Each grader process claims its own uid (``claim``): a batch's workers, or
two runs of a teacher's, grade side by side, and one grader's children must
not be able to signal another's, nor count against its process limit. What
a child leaves in the machine's world-writable folders, at any depth, is
removed by the zygote after every exercise, and when it starts and ends
(``leftovers.clear_owned``); when it starts, also what a user of the range
that no grader holds left (``unclaimed``: a grader that was killed). Two
graders side by side can still pass files to each other's children while
both run: only namespaces (the sandbox) would keep them apart.

The Python installation must be readable by that user: an interpreter under
a folder only root may enter (a pyenv under ``/root``) is reached through
directory descriptors the zygote opens while still root
(``/proc/self/fd/N``), as long as what such a descriptor exposes holds
nothing of the grader's (``probe`` checks); otherwise the grader falls back
to root without capabilities and says why.
"""

import fcntl
import json
import os
import stat
import sys
from dataclasses import dataclass, field

# 60000-64999: "allocated by Debian, created on demand"; unused on most
# machines and below 65536, so they exist in containers that map only 65536
# uids. Any of them that an account or group of this machine has is skipped.
FIRST_UID = 60500
SLOTS = 200


@dataclass(frozen=True)
class ChildUser:
    uid: int
    gid: int
    reach: tuple = field(default=())  # interpreter folders the user reaches only through a descriptor

    def to_arg(self) -> str:
        return json.dumps({"uid": self.uid, "gid": self.gid, "reach": list(self.reach)})

    @classmethod
    def from_arg(cls, text: str) -> "ChildUser":
        d = json.loads(text)
        return cls(int(d["uid"]), int(d["gid"]), tuple(d["reach"]))


def wanted(sandboxed: bool) -> bool:
    """Children need a user of their own: root, outside the sandbox, on Linux."""
    return not sandboxed and sys.platform.startswith("linux") and os.geteuid() == 0


def _taken(path: str) -> set[int]:
    ids = set()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(":")
                if len(parts) > 2 and parts[2].isdigit():
                    ids.add(int(parts[2]))
    except OSError:
        pass
    return ids


def uids_running() -> set[int]:
    """The real uids of every process on the machine."""
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                found.add(os.stat(f"/proc/{name}").st_uid)
            except OSError:
                pass
    return found


def _claims_folder() -> str | None:
    """A folder only root may write, for the claims: /run's, else /tmp's
    (never one that someone else made first)."""
    for parent in ("/run", "/tmp"):
        folder = os.path.join(parent, "attention-grader-users")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        info = os.lstat(folder)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o077:
            return folder
    return None


def claim() -> tuple[int, int] | None:
    """A uid of the range for this grader process alone, and the descriptor
    whose lock holds the claim (it ends when every process holding it has
    ended: the grader, its zygote). Graders side by side (a batch's workers,
    two teachers' runs) never share a uid, and none takes one that a
    process still has (a killed grader's leftovers); None if all are taken."""
    folder = _claims_folder()
    if folder is None:
        return None
    taken = _taken("/etc/passwd") | _taken("/etc/group") | uids_running()
    for uid in range(FIRST_UID, FIRST_UID + SLOTS):
        if uid in taken:
            continue
        fd = os.open(os.path.join(folder, str(uid)), os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    return None


def unclaimed() -> tuple[set[int], list[int]]:
    """The uids of the range that were claimed once, and that no grader
    holds now and no process has (a grader killed before its zygote cleared
    what its children left), with the descriptors whose locks hold them for
    the caller until it closes them: no grader claims one meanwhile."""
    folder = _claims_folder()
    if folder is None:
        return set(), []
    taken = _taken("/etc/passwd") | _taken("/etc/group") | uids_running()
    uids, fds = set(), []
    for name in os.listdir(folder):
        if not name.isdigit() or int(name) in taken or not FIRST_UID <= int(name) < FIRST_UID + SLOTS:
            continue
        try:
            fd = os.open(os.path.join(folder, name), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        uids.add(int(name))
        fds.append(fd)
    return uids, fds


def become(user: ChildUser) -> None:
    """Called in a child while it is still root: from here on it is ``user``,
    with no supplementary group; the kernel clears every capability."""
    os.setgroups([])
    os.setresgid(user.gid, user.gid, user.gid)
    os.setresuid(user.uid, user.uid, user.uid)


def interpreter_paths() -> list[str]:
    """The folders of ``sys.path`` that belong to the Python installation
    (its library and packages): all a child may import from besides the
    submission's own folder, never the project."""
    return [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p or p.startswith(sys.base_prefix) or p.startswith(sys.prefix))]


# The zygote's descriptors for the interpreter's folders sit from here up,
# clear of the numbers a child gives its streams and pipes (0-4).
REACH_FD = 100


class Reach:
    """In the zygote, while still root: a descriptor for each folder of
    ``user.reach``, and every import path of this process (``sys.path`` and
    each package's ``__path__``) that lies in one, rewritten to go through
    it (``/proc/self/fd/N/...``). Children inherit both with the fork: a
    lazy ``import`` (``encodings.utf_8_sig``, a part of torch) still finds
    its files once the child is no longer root."""

    def __init__(self, user: "ChildUser | None"):
        self.fds: list[int] = []
        self.where: dict[str, str] = {}
        for path in user.reach if user is not None else ():
            fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, REACH_FD)
            os.close(fd)
            self.fds.append(high)
            self.where[path.rstrip(os.sep)] = f"/proc/self/fd/{high}"
        if self.where:
            self._rewrite_modules()

    def map(self, path: str) -> str:
        """``path`` through a descriptor, if it lies in a folder of ``reach``."""
        for top in sorted(self.where, key=len, reverse=True):
            if path == top or path.startswith(top + os.sep):
                return self.where[top] + path[len(top) :]
        return path

    def _rewrite_modules(self) -> None:
        sys.path[:] = [self.map(p) for p in sys.path]
        for module in list(sys.modules.values()):
            paths = getattr(module, "__path__", None)
            if isinstance(paths, list):  # a namespace package's path follows its parent's
                paths[:] = [self.map(p) if isinstance(p, str) else p for p in paths]
        sys.path_importer_cache.clear()


# - deciding, once per grader -


def _exposed_root(path: str) -> str | None:
    """Run as the child's user: the folder a descriptor for ``path`` would
    open to it, or None if the user reaches ``path`` anyway. Lookups below
    the deepest folder the user cannot search are allowed from a descriptor,
    '..' included, up to that folder; its child on the way to ``path`` is
    the top of what can be read."""
    if os.access(path, os.R_OK | os.X_OK):
        return None
    parts = os.path.realpath(path).split(os.sep)
    blocked = None
    for i in range(1, len(parts)):
        ancestor = os.sep.join(parts[:i]) or os.sep
        if not os.access(ancestor, os.X_OK):
            blocked = i
    if blocked is None or blocked >= len(parts):
        return path  # the folder itself is closed: a descriptor exposes only it
    return os.sep.join(parts[: blocked + 1])


def _probe_as(uid: int, paths: list[str], secrets: list[str]) -> dict:
    """As ``uid``, in a forked process: which of ``paths`` need a descriptor
    and what each would expose; which of ``secrets`` the user can open."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            become(ChildUser(uid, uid))
            exposed = {p: _exposed_root(p) for p in paths}
            readable = [s for s in secrets if os.path.exists(s) and os.access(s, os.R_OK)]
            os.write(w, json.dumps({"exposed": exposed, "readable": readable}).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data) if data else {"error": "the probe failed"}


@dataclass
class Decision:
    user: ChildUser | None
    problems: list  # why children fall back, or what the user can still read (said once)
    claim_fd: int | None = None  # holds the user for this grader while it is open (``claim``)


def probe(paths: list[str], protected: list[str]) -> Decision:
    """Decide the children's user for a root grader without a sandbox.

    ``paths``: the folders a child imports from (the interpreter's);
    ``protected``: what no child may read (the solutions, the hidden checks).
    A folder of the interpreter that the user cannot reach is opened to it by
    descriptor, unless that would expose something protected; then the
    children stay root without capabilities."""
    claimed = claim()
    if claimed is None:
        return Decision(None, [f"no free user id in {FIRST_UID}-{FIRST_UID + SLOTS - 1} for the children: they run as root without capabilities"])
    uid, claim_fd = claimed
    found = _probe_as(uid, paths, protected)
    if "error" in found:
        os.close(claim_fd)
        return Decision(None, [found["error"]])
    real = [os.path.realpath(p) for p in protected]
    reach = []
    for path, top in found["exposed"].items():
        if top is None or not os.path.isdir(path):
            continue  # reachable anyway, or nothing there (python311.zip, usually)
        if any(p == top or p.startswith(top.rstrip(os.sep) + os.sep) for p in real):
            os.close(claim_fd)
            return Decision(None, [f"the Python installation ({path}) is not readable by an unprivileged user, and opening it would expose {top}: children run as root without capabilities"])
        reach.append(path)
    problems = [f"readable by every user: {p} (make it readable by its owner only: chmod -R go-rwx)" for p in found["readable"]]
    return Decision(ChildUser(uid, uid, tuple(reach)), problems, claim_fd)
