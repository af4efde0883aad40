"""Run a command where a child's seccomp filter cannot be installed, the
way some machines are: ``python seccomp_jail.py WAY -- COMMAND...``.

- ``refuse``: a filter of our own answers prctl(PR_SET_SECCOMP) and
  seccomp() with EINVAL, as a container runtime's profile may;
- ``full``: filters stacked up to the kernel's limit on their total length
  (32768 instructions, each filter counting 4 more), so no filter of more
  than a couple of instructions fits after them.

Both are inherited by everything the command starts. x86_64 only.
"""

import ctypes
import os
import struct
import sys

LD_NR, LD_ARCH, LD_ARG0 = (0x20, 0, 0, 0), (0x20, 0, 0, 4), (0x20, 0, 0, 16)
ALLOW, EINVAL = (0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050000 | 22)
AUDIT_ARCH_X86_64, NR_PRCTL, NR_SECCOMP, PR_SET_SECCOMP = 0xC000003E, 157, 317, 22
MAX_LEN = 4096  # instructions a filter may have


def _jeq(k, jt, jf):
    return (0x15, jt, jf, k)


def _install(prog) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    raw = b"".join(struct.pack("=HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs")
    if libc.prctl(PR_SET_SECCOMP, 2, ctypes.byref(Fprog(len(prog), ctypes.addressof(buf))), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp")


def refuse() -> None:
    _install(
        [
            LD_ARCH,
            _jeq(AUDIT_ARCH_X86_64, 0, 6),
            LD_NR,
            _jeq(NR_SECCOMP, 3, 0),
            _jeq(NR_PRCTL, 0, 3),
            LD_ARG0,
            _jeq(PR_SET_SECCOMP, 0, 1),
            EINVAL,
            ALLOW,
        ]
    )


def full() -> None:
    """Whatever filters the process has already (a container's, say): fill
    what is left, in ever smaller filters, until not even 2 instructions fit."""
    length = MAX_LEN
    while length >= 2:
        try:
            _install([LD_NR] * (length - 1) + [ALLOW])
        except OSError:
            length //= 2


if __name__ == "__main__":
    way, sep, *command = sys.argv[1:]
    assert sep == "--" and way in ("refuse", "full")
    {"refuse": refuse, "full": full}[way]()
    os.execvp(command[0], command)
