"""What one exercise's code can leave behind for the next, and how the
sandboxed zygote clears it before every exercise begins.

Inside the bubblewrap sandbox everything below is the sandbox's own (its
/tmp and /dev/shm are its own tmpfs mounts, its SysV IPC objects and POSIX
message queues live in its own IPC namespace), so all of it can go: files and
folders in /tmp and /dev/shm (a folder made read-only, mode 0555, is made
writable first: the sandbox's user owns it), shared memory segments, message
queues and semaphore sets, and the queues in /dev/mqueue. Without the sandbox
these are the machine's, shared with every other program of the user: only
where the children run as a user of the grader's own (``child_user``, a root
grader without namespaces) does the zygote remove what that user owns, at
any depth, in every folder of the machine that every user may write
(``world_writable``, ``clear_owned``); otherwise they are not touched
(README, "the sandbox").
"""

import os
import stat
from collections import deque

from grader.child import confine

# /proc/sysvipc file -> how to remove one object of it, given its id.
_SYSV = {
    "shm": lambda libc, ident: libc.shmctl(ident, 0, None),  # IPC_RMID = 0
    "msg": lambda libc, ident: libc.msgctl(ident, 0, None),
    "sem": lambda libc, ident: libc.semctl(ident, 0, 0),
}


def _empty(folder: str) -> None:
    """Remove everything in ``folder`` that lies on its own file system;
    mount points below it (the grader's folders bound read-only into the
    sandbox's /tmp) are not even walked."""
    try:
        device = os.stat(folder).st_dev
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
            if info.st_dev != device:
                continue  # a mount point: not ours to empty
            if stat.S_ISDIR(info.st_mode):
                if info.st_mode & 0o700 != 0o700:
                    os.chmod(entry.path, 0o700)  # a folder made read-only to outlive the wipe
                _empty(entry.path)
                os.rmdir(entry.path)  # fails, harmlessly, where a mount lies below
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def _sysv_ids(kind: str, owners: set[int] | None = None) -> list[int]:
    """The ids of ``kind``'s objects (of the uids ``owners`` only, if given)."""
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            rows = [row.split() for row in f.read().splitlines()]
    except OSError:
        return []
    if not rows:
        return []
    header, rows = rows[0], rows[1:]
    column = header.index("uid") if "uid" in header else None
    return [int(row[1]) for row in rows if len(row) > 1 and (owners is None or (column is not None and len(row) > column and row[column].isdigit() and int(row[column]) in owners))]


def clear() -> None:
    """Remove everything an exercise's code may have left in the sandbox's
    shared places. Called by the sandboxed zygote once every child of the
    exercise is dead, before the next exercise's code runs."""
    for folder in ("/tmp", "/dev/shm", "/dev/mqueue"):
        _empty(folder)
    _remove_sysv()


def _remove_sysv(owners: set[int] | None = None) -> None:
    libc = confine.libc()
    for kind, remove in _SYSV.items():
        for ident in _sysv_ids(kind, owners):
            remove(libc, ident)


# - without namespaces: what the children's own user left on the machine -
#
# A child of a root grader runs as a user of the grader's own (``child_user``),
# "other" to every folder of the machine but its own. It can leave something
# for a later child of that user only where it may write: in a folder every
# user may write (mode o+w, sticky or not: /tmp, /var/tmp, /dev/shm,
# /dev/mqueue, /run/lock, /tmp/.X11-unix, ...), at any depth below it, and in
# the folders it made there. So the zygote finds those folders once when it
# starts (``world_writable``), and after every exercise removes, inside them,
# everything that user owns (``clear_owned``): the walk goes into the folders
# that user owns and the ones every user may write, never into any other, and
# never follows a symbolic link.

_VIRTUAL = ("/proc", "/sys")  # no files there a child could leave
DEPTH = 64  # folders below a world-writable one the sweep goes into at once (_sweep)
FIND_BUDGET = 200_000  # folders world_writable looks into at most (a full walk here: about 20 000)


def world_writable(roots=("/",), budget: int = FIND_BUDGET) -> tuple[str, ...]:
    """Every folder below ``roots`` that a user who owns none of them could
    write in: mode o+w, reached through folders it may go through (o+x), on a
    file system not mounted read-only. Symbolic links are not followed; each
    folder is looked into once (bind mounts show some twice). A breadth-first
    walk of folders only, about 0.2 s for a machine's 20 000 folders: done
    once per zygote. ``roots``: "/" and the folders the children reach by a
    descriptor of the zygote's (``child_user.Reach``)."""
    found: list[str] = []
    queue: deque[tuple[str, int]] = deque()
    seen: set[tuple[int, int]] = set()
    for root in roots:
        try:
            info = os.stat(root, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            if info.st_mode & 0o002:
                found.append(root)
            queue.append((root, info.st_dev))
    while queue and budget > 0:
        folder, device = queue.popleft()
        budget -= 1
        try:
            with os.scandir(folder) as it:
                entries = [e for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in entries:
            if entry.path in _VIRTUAL:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if (info.st_dev, info.st_ino) in seen or not info.st_mode & 0o001:
                    continue  # looked into already, or the children's user cannot go through it
                if info.st_dev != device and os.statvfs(entry.path).f_flag & os.ST_RDONLY:
                    continue  # a file system mounted read-only: nobody writes below
            except OSError:
                continue
            seen.add((info.st_dev, info.st_ino))
            if info.st_mode & 0o002:
                found.append(entry.path)
            if info.st_nlink != 2:  # 2: a folder with no folder in it (ext4, tmpfs, xfs); 1: not counted
                queue.append((entry.path, info.st_dev))
    return tuple(found)


def clear_owned(owners: set[int], places) -> None:
    """Without namespaces, where children run as a user of the grader's own:
    remove everything a uid of ``owners`` owns in ``places`` (``world_writable``)
    at any depth: files, folders with all in them, symbolic links, FIFOs,
    sockets, and hard links that user made in its own folders to a file of
    another (the file itself stays); and its SysV IPC objects. Called by the
    zygote while no process of those users runs. Nothing of another user is
    removed or changed, and no symbolic link is followed (each folder is
    opened relative to its parent, O_NOFOLLOW)."""
    for _ in range(_PASSES):
        swept: set[tuple[int, int]] = set()  # a world-writable folder inside another is in ``places`` too
        moved = [False]
        for place in places:
            try:
                fd = os.open(place, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                _sweep(fd, owners, swept, fd, moved, depth=0, own_folder=False)
            finally:
                os.close(fd)
        if not moved[0]:
            break
    _remove_sysv(owners)


# A folder of theirs deeper than DEPTH is moved up into the world-writable
# folder it lies in, and swept on one more pass: at most this many.
_PASSES = 1000


def _sweep(dir_fd: int, owners: set[int], swept: set, top_fd: int, moved: list, depth: int, own_folder: bool) -> None:
    """Remove what ``owners`` own in the folder ``dir_fd``, and below in the
    folders they own or every user may write. ``own_folder``: the folder is
    theirs (a hard link there to another user's file is theirs to remove).
    ``top_fd``: the world-writable folder swept; a folder of theirs deeper
    than ``DEPTH`` below it is moved there (``moved[0]`` says so)."""
    info = os.fstat(dir_fd)
    if (info.st_dev, info.st_ino) in swept:
        return
    swept.add((info.st_dev, info.st_ino))
    try:
        with os.scandir(dir_fd) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        mine = info.st_uid in owners
        if not stat.S_ISDIR(info.st_mode):
            if mine or (own_folder and info.st_nlink > 1):
                _try(os.unlink, entry.name, dir_fd=dir_fd)
            continue
        if not (mine or info.st_mode & 0o002):
            continue  # the children's user could not write in it
        if depth >= DEPTH:
            if mine and _move_up(dir_fd, entry.name, top_fd, info):
                moved[0] = True
            continue
        try:
            fd = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            now = os.fstat(fd)
            if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
                continue  # replaced since it was looked at: not what was judged
            _sweep(fd, owners, swept, top_fd, moved, depth + 1, own_folder=mine)
        finally:
            os.close(fd)
        if mine and not _try(os.rmdir, entry.name, dir_fd=dir_fd):
            _lock_away(dir_fd, entry.name)


def _move_up(dir_fd: int, name: str, top_fd: int, info) -> bool:
    try:
        os.rename(name, f".attention-cleared-{info.st_dev}-{info.st_ino}", src_dir_fd=dir_fd, dst_dir_fd=top_fd)
        return True
    except OSError:
        return False  # another file system: it stays, and its parent is locked away


def _try(remove, name: str, dir_fd: int) -> bool:
    try:
        remove(name, dir_fd=dir_fd)
        return True
    except OSError:
        return False


def _lock_away(dir_fd: int, name: str) -> None:
    """A folder of the children's user that could not be emptied (another
    user's file in it): made root's, mode 000, so that no later child can go
    through it."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fchown(fd, 0, 0)
        os.fchmod(fd, 0)
    except OSError:
        pass
    finally:
        os.close(fd)
