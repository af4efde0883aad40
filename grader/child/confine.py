"""What a child may do to processes outside its own exercise: nothing.

``confine()`` runs in every child after the fork and before any submission
code, with or without the bubblewrap sandbox:

- A child that is still root here (in the sandbox, whose user namespace maps
  one user; or where a root grader found no user of their own for its
  children, ``child_user``) loses every capability, for good: the kernel lets
  no process trace or open the memory of a process that holds capabilities
  it lacks, or of a non-dumpable one, without CAP_SYS_PTRACE.
- ``no_new_privs`` and a seccomp filter (a short program of BPF
  instructions, built here: the students' environment installs nothing for
  it) refuse, with EPERM, the system calls that reach into another process:
  ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd``, ``kcmp``,
  ``process_madvise``, ``process_mrelease``, ``move_pages``,
  ``migrate_pages``, ``perf_event_open``; and those that change another
  process's limits or priority (``prlimit64``, ``setpriority``,
  ``ioprio_set``, ``sched_set*``) unless they name the caller itself (pid 0;
  for setpriority and ioprio_set also its own process group, never "every
  process of this user"). It refuses, too, what no child needs: the kernel's
  keyrings (``add_key``, ``request_key``, ``keyctl``: a store shared by every
  process of the user that nothing empties between exercises or students),
  ``io_uring_*``, ``userfaultfd``, ``bpf``, new namespaces (``unshare``,
  ``setns``, ``clone`` with a ``CLONE_NEW*`` flag; ``clone3``, whose flags it
  cannot read, gets ENOSYS and the C library uses ``clone``), mounts and
  ``chroot``, kernel modules and ``kexec``, POSIX message queues
  (``mq_open``). The filter is inherited by
  everything the child starts and cannot be removed.

The grading process and the zygote make themselves non-dumpable
(``protect_self``): a process of the same user without CAP_SYS_PTRACE can then
not open their ``/proc/PID/mem``, ``environ`` or ``fd/`` either (seccomp
cannot see paths).

Only Linux on x86_64 and aarch64 gets the filter; elsewhere ``confine``
returns what it could not do, and the grader says so.
"""

import ctypes
import functools
import os
import struct
import sys

_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38  # the same on x86_64 and aarch64

# BPF opcodes (linux/filter.h)
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: load a 32-bit word of seccomp_data
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K: jump if A & k
_RET_K = 0x06  # BPF_RET | BPF_K

# seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH = 0, 4


def _arg(i: int, high: bool = False) -> int:
    return 16 + 8 * i + (4 if high else 0)  # little-endian: the low word first


# Refused outright, with EPERM: one group a line, and why.
_REFUSED = (
    # reach into another process: trace it, read or write its memory, take its descriptors, watch it, move its pages
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "process_madvise",
    "process_mrelease",
    "perf_event_open",
    "move_pages",
    "migrate_pages",
    # keyrings: a key outlives its process, all of the user's processes find it, nothing empties it: a channel
    "add_key",
    "request_key",
    "keyctl",
    # kernel interfaces no child needs, where many kernel escapes began
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "bpf",
    # new namespaces (in a user namespace a process holds every capability) or another's; clone: below
    "unshare",
    "setns",
    # mounts (old API and new) and another root: what a child sees of the file system is not its to change
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    # code into the kernel, or another kernel
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    # POSIX message queues: without namespaces the machine's, kept after the child where nobody can list them
    "mq_open",
)
# clone is refused (EPERM) with any CLONE_NEW* flag: a namespace as unshare
# makes one. clone3 passes its flags in memory, which seccomp cannot read: it
# gets ENOSYS, as from a kernel that lacks it, and the C library falls back to
# clone (glibc does for threads and posix_spawn; fork calls clone anyway).
_CLONE_NEW_FLAGS = 0x7E020000  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (NEWTIME is clone3's alone)

# Per architecture: its AUDIT_ARCH value, and the numbers of the calls this
# filter names (arch/x86/entry/syscalls/syscall_64.tbl; arm64 uses
# include/uapi/asm-generic/unistd.h).
_ARCHES = {
    "x86_64": (
        0xC000003E,
        {
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "kcmp": 312,
            "pidfd_getfd": 438,
            "process_madvise": 440,
            "process_mrelease": 448,
            "move_pages": 279,
            "migrate_pages": 256,
            "perf_event_open": 298,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "userfaultfd": 323,
            "bpf": 321,
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "open_tree": 428,
            "move_mount": 429,
            "mount_setattr": 442,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
            "kexec_load": 246,
            "kexec_file_load": 320,
            "mq_open": 240,
            "clone": 56,
            "clone3": 435,
            "prlimit64": 302,
            "setpriority": 141,
            "ioprio_set": 251,
            "sched_setaffinity": 203,
            "sched_setscheduler": 144,
            "sched_setparam": 142,
            "sched_setattr": 314,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "kcmp": 272,
            "pidfd_getfd": 438,
            "process_madvise": 440,
            "process_mrelease": 448,
            "move_pages": 239,
            "migrate_pages": 238,
            "perf_event_open": 241,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "userfaultfd": 282,
            "bpf": 280,
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "open_tree": 428,
            "move_mount": 429,
            "mount_setattr": 442,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
            "kexec_load": 104,
            "kexec_file_load": 294,
            "mq_open": 180,
            "clone": 220,
            "clone3": 435,
            "prlimit64": 261,
            "setpriority": 140,
            "ioprio_set": 30,
            "sched_setaffinity": 122,
            "sched_setscheduler": 119,
            "sched_setparam": 118,
            "sched_setattr": 274,
        },
    ),
}
# Allowed only on the caller itself: where the pid sits in each such call,
# and the "which" argument whose value "every process of a user" is refused
# even with who = 0.
_PRIO_USER, _IOPRIO_WHO_USER = 2, 3
_SELF_ONLY = {
    "prlimit64": (0, None, None),
    "setpriority": (1, 0, _PRIO_USER),
    "ioprio_set": (1, 0, _IOPRIO_WHO_USER),
    "sched_setaffinity": (0, None, None),
    "sched_setscheduler": (0, None, None),
    "sched_setparam": (0, None, None),
    "sched_setattr": (0, None, None),
}


def _stmt(code: int, k: int) -> tuple:
    return (code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> tuple:
    return (code, jt, jf, k)


def filter_program(machine: str) -> list[tuple] | None:
    """The seccomp program for ``machine`` (``os.uname().machine``), as
    (code, jt, jf, k) instructions; None where there is none."""
    if machine not in _ARCHES:
        return None
    audit_arch, numbers = _ARCHES[machine]
    allow, deny = _stmt(_RET_K, _SECCOMP_RET_ALLOW), _stmt(_RET_K, _SECCOMP_RET_ERRNO | _EPERM)
    prog = [
        _stmt(_LD_W_ABS, _ARCH),
        _jump(_JEQ_K, audit_arch, 1, 0),
        deny,  # another ABI (32-bit calls on x86_64) has other numbers: nothing of it
        _stmt(_LD_W_ABS, _NR),
    ]
    if machine == "x86_64":
        prog += [_jump(_JGE_K, 0x40000000, 0, 1), deny]  # the x32 ABI's numbers
    # _REFUSED: one comparison each, all jumping to the one "deny" after the last.
    refused = [numbers[name] for name in _REFUSED]
    prog += [_jump(_JEQ_K, nr, len(refused) - 1 - i, 1 if i == len(refused) - 1 else 0) for i, nr in enumerate(refused)]
    prog += [deny]
    prog += [_jump(_JEQ_K, numbers["clone3"], 0, 1), _stmt(_RET_K, _SECCOMP_RET_ERRNO | _ENOSYS)]
    prog += [  # clone: refused with a CLONE_NEW* flag, else allowed
        _jump(_JEQ_K, numbers["clone"], 0, 4),
        _stmt(_LD_W_ABS, _arg(0)),  # the flags' low word (the kernel reads no more of them)
        _jump(_JSET_K, _CLONE_NEW_FLAGS, 0, 1),
        deny,
        allow,
    ]
    for name, (pid_arg, which_arg, refused_which) in _SELF_ONLY.items():
        nr = numbers[name]
        if which_arg is None:
            body = [
                _stmt(_LD_W_ABS, _arg(pid_arg)),
                _jump(_JEQ_K, 0, 0, 3),  # low word of the pid != 0: to "deny"
                _stmt(_LD_W_ABS, _arg(pid_arg, high=True)),
                _jump(_JEQ_K, 0, 0, 1),  # high word != 0: to "deny"
                allow,
                deny,
            ]
        else:
            assert refused_which is not None  # both or neither: _SELF_ONLY's rows
            body = [
                _stmt(_LD_W_ABS, _arg(pid_arg)),
                _jump(_JEQ_K, 0, 0, 4),  # who != 0: to "deny"
                _stmt(_LD_W_ABS, _arg(pid_arg, high=True)),
                _jump(_JEQ_K, 0, 0, 2),
                _stmt(_LD_W_ABS, _arg(which_arg)),
                _jump(_JEQ_K, refused_which, 0, 1),  # "every process of a user": to "deny"
                deny,
                allow,
            ]
        # Not this call: skip its body, whose loads left an argument in A.
        prog += [_jump(_JEQ_K, nr, 0, len(body)), *body, _stmt(_LD_W_ABS, _NR)]
    prog.append(allow)
    return prog


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


@functools.cache
def libc():
    """The C library, loaded once (by the zygote, for every child it forks)."""
    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def _raw_filter(machine: str) -> bytes | None:
    """The filter for ``machine`` as the kernel reads it."""
    prog = filter_program(machine)
    return None if prog is None else b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def prepare() -> None:
    """Called once in the zygote: every child inherits the C library's handle
    and the filter ready to install instead of building them (about 1 ms of
    each child's CPU)."""
    if sys.platform.startswith("linux"):
        libc()
        _raw_filter(os.uname().machine)


def _install(raw: bytes) -> None:
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = _SockFprog(len(raw) // 8, ctypes.addressof(buf))
    c = libc()
    if c.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if c.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def _drop_capabilities() -> None:
    """Root without any capability: the same uid as the grader, but none of
    root's powers (no CAP_SYS_PTRACE for non-dumpable processes, no override
    of file permissions or resource limits); nothing regains them
    (no_new_privs, an emptied bounding set)."""
    c = libc()
    for cap in range(64):
        if c.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP; fails past the last capability
            break
    c.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    data = (_CapData * 2)()
    if c.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data) != 0:  # _LINUX_CAPABILITY_VERSION_3
        raise OSError(ctypes.get_errno(), "capset")


def confine() -> list[str]:
    """Confine the calling child (see the module docstring); return what could
    not be done here."""
    missing = []
    if not sys.platform.startswith("linux"):
        return ["seccomp (not Linux)"]
    if os.getuid() == 0:
        try:
            _drop_capabilities()
        except OSError as exc:
            missing.append(f"dropping root's capabilities ({exc})")
    raw = _raw_filter(os.uname().machine)
    if raw is None:
        return [f"seccomp (no filter for {os.uname().machine})"]
    try:
        _install(raw)
    except (OSError, AttributeError) as exc:
        missing.append(f"seccomp ({exc})")
    return missing


def protect_self() -> None:
    """Make this process non-dumpable: another process of the same user
    cannot open its memory, environment or descriptors through /proc."""
    if sys.platform.startswith("linux"):
        try:
            libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        except (OSError, AttributeError):
            pass
