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
grader without namespaces) does the zygote remove what that user owns there,
and in /var/tmp and /run/lock (``clear_owned``); otherwise they are not touched (README,
"the sandbox").
"""
import os
import stat

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


def _sysv_ids(kind: str, owner: int | None = None) -> list[int]:
    """The ids of ``kind``'s objects (of ``owner``'s uid only, if given)."""
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            rows = [row.split() for row in f.read().splitlines()]
    except OSError:
        return []
    if not rows:
        return []
    header, rows = rows[0], rows[1:]
    column = header.index("uid") if "uid" in header else None
    return [
        int(row[1])
        for row in rows
        if len(row) > 1 and (owner is None or (column is not None and len(row) > column and row[column] == str(owner)))
    ]


def clear() -> None:
    """Remove everything an exercise's code may have left in the sandbox's
    shared places. Called by the sandboxed zygote once every child of the
    exercise is dead, before the next exercise's code runs."""
    for folder in ("/tmp", "/dev/shm", "/dev/mqueue"):
        _empty(folder)
    _remove_sysv()


def _remove_sysv(owner: int | None = None) -> None:
    libc = confine.libc()
    for kind, remove in _SYSV.items():
        for ident in _sysv_ids(kind, owner):
            remove(libc, ident)


# The machine's folders every user may write in (sticky): where a child of
# the grader's own user can leave something for a later child of that user.
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/run/lock", "/dev/shm", "/dev/mqueue")


def clear_owned(uid: int) -> None:
    """Without namespaces, where children run as the grader's own ``uid``:
    remove what that user owns in the machine's world-writable folders (each
    child's HOME and TMPDIR among it) and its SysV IPC objects. Called by the
    zygote once every child of the exercise is dead; nothing of another user
    is touched."""
    for folder in WORLD_WRITABLE:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
                if info.st_uid != uid:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    os.chmod(entry.path, 0o700)
                    _empty(entry.path)
                    os.rmdir(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
    _remove_sysv(uid)
