"""What one exercise's code can leave behind for the next, and how the
sandboxed zygote clears it before every exercise begins.

Inside the bubblewrap sandbox everything below is the sandbox's own (its
/tmp and /dev/shm are its own tmpfs mounts, its SysV IPC objects and POSIX
message queues live in its own IPC namespace), so all of it can go: files and
folders in /tmp and /dev/shm (a folder made read-only, mode 0555, is made
writable first: the sandbox's user owns it), shared memory segments, message
queues and semaphore sets, and the queues in /dev/mqueue. Without the sandbox
these are the machine's, shared with every other program of the user: they
are not touched (README, "the sandbox").
"""
import os
import stat

from grader import confine

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


def _sysv_ids(kind: str) -> list[int]:
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        return []
    return [int(row.split()[1]) for row in rows if len(row.split()) > 1]


def clear() -> None:
    """Remove everything an exercise's code may have left in the sandbox's
    shared places. Called by the sandboxed zygote once every child of the
    exercise is dead, before the next exercise's code runs."""
    for folder in ("/tmp", "/dev/shm", "/dev/mqueue"):
        _empty(folder)
    libc = confine.libc()
    for kind, remove in _SYSV.items():
        for ident in _sysv_ids(kind):
            remove(libc, ident)
