"""The kernel's keyrings, and the other system calls no child needs (issue 18,
section 2), with the real command line and with a confined child.

A key lives in the kernel, not in any folder or process: the user keyring and
the user session keyring belong to the uid (in the sandbox, to the sandbox's
user namespace, which every child of a grader process shares), outlive the
process that added the key, and nothing of the grader empties them between
exercises or students. A submission could leave its files there for the next
exercise, or for the next student graded by the same worker, to read and run.
The seccomp filter (``grader/child/confine.py``) refuses ``add_key``,
``request_key`` and ``keyctl``.

Each submission here has exercises that first look for a key under the
test's name (and raise what they found: the check's feedback then shows it)
and, finding none, store one: the exercise graded second finds the first's
unless the keyrings are closed. Two ways: ``add_key`` to the user keyring
found with ``keyctl(KEYCTL_SEARCH)``, and ``add_key`` to the user session
keyring found with ``request_key``; between exercises one way at a time,
between students both. Keys get a timeout, so that a run on a grader without
the filter leaves nothing on the machine for long.

The confined child's test calls every refused system call with harmless
arguments and expects EPERM (ENOSYS for ``clone3``, so that the C library
falls back to ``clone``, whose flags the filter can read), and checks that
fork, threads and subprocesses still work under the filter.
"""

import ctypes
import errno
import json
import multiprocessing
import os
import secrets
import subprocess
import sys
import threading

import pytest
from conftest import SOLUTIONS, grade_cli, make_submission, points_by_exercise
from test_batch import batch, by_id, maxima, points, read_csv, results_of

from grader.child import confine
from grader.engine import sandbox as sandbox_mod

MODES = [
    pytest.param("off"),
    pytest.param("require", marks=pytest.mark.skipif(not sandbox_mod.available(), reason="no sandbox can be made here")),
]

# A prefix for a correct exercise file: look for the key each of ``ways``
# (raise what it holds if there is one), then store one each way that says
# who stored it.
KEYRING_CODE = """
import ctypes as _ctypes
import os as _os

_libc = _ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = _ctypes.c_long
_ADD_KEY, _REQUEST_KEY, _KEYCTL = {{"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}}[_os.uname().machine]
_L = _ctypes.c_long
_DESC = b"{desc}"
_USER_KEYRING, _USER_SESSION_KEYRING = -4, -5
_KEYCTL_READ, _KEYCTL_SEARCH, _KEYCTL_SET_TIMEOUT, _KEYCTL_INVALIDATE = 11, 10, 15, 21
_WAYS = {ways!r}


def _find(way):
    if way == "user_keyring":
        return _libc.syscall(_L(_KEYCTL), _L(_KEYCTL_SEARCH), _L(_USER_KEYRING), b"user", _DESC, _L(0))
    return _libc.syscall(_L(_REQUEST_KEY), b"user", _DESC, None, _L(0))


def _store(way, payload):
    ring = _USER_KEYRING if way == "user_keyring" else _USER_SESSION_KEYRING
    key = _libc.syscall(_L(_ADD_KEY), b"user", _DESC, payload, _ctypes.c_size_t(len(payload)), _L(ring))
    if key > 0:
        _libc.syscall(_L(_KEYCTL), _L(_KEYCTL_SET_TIMEOUT), _L(key), _L(300))  # gone soon whatever happens


for _way in _WAYS:
    _key = _find(_way)
    if _key > 0:
        _buf = _ctypes.create_string_buffer(4096)
        _n = _libc.syscall(_L(_KEYCTL), _L(_KEYCTL_READ), _L(_key), _buf, _L(len(_buf)))
        _libc.syscall(_L(_KEYCTL), _L(_KEYCTL_INVALIDATE), _L(_key))
        raise RuntimeError(f"FOUND IN THE KEYRING ({{_way}}): " + _buf.raw[: max(_n, 0)].decode(errors="replace"))
for _way in _WAYS:
    _store(_way, b"stored by {who}")

"""
WAYS = ("user_keyring", "request_key")


def with_keyring(exercise: str, desc: str, ways: tuple, who: str) -> str:
    with open(os.path.join(SOLUTIONS, exercise + ".py"), encoding="utf-8") as f:
        return KEYRING_CODE.format(desc=desc, ways=ways, who=who) + f.read()


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("mode", MODES)
def test_keyring_between_exercises(tmp_path, mode, way, full_marks):
    """ex0 stores a key, ex1 looks for it: both keep full marks, and nothing
    ex0 stored shows in ex1's feedback."""
    desc = "attn-test-" + secrets.token_hex(6)
    folder = make_submission(
        tmp_path / "sub",
        {
            "ex0_weighted_sum": with_keyring("ex0_weighted_sum", desc, (way,), "ex0"),
            "ex1_averaging": with_keyring("ex1_averaging", desc, (way,), "ex1"),
        },
    )
    results, proc = grade_cli(folder, "--sandbox", mode)
    text = proc.stdout + json.dumps(results, ensure_ascii=False)
    assert "FOUND IN THE KEYRING" not in text, text
    got = points_by_exercise(results)
    assert got["ex0_weighted_sum"] == full_marks["ex0_weighted_sum"]
    assert got["ex1_averaging"] == full_marks["ex1_averaging"]


@pytest.mark.parametrize("mode", MODES)
def test_keyring_between_students(tmp_path, mode):
    """Two students graded one after the other by one worker (--jobs 1, in
    the sandbox one sandbox for both): whichever is graded second looks, both
    ways, for the keys the first stored, in vain."""
    desc = "attn-test-" + secrets.token_hex(6)
    d, out, tmp = tmp_path / "subs", tmp_path / "out", tmp_path / "tmp"
    for who in ("anna", "ben"):
        make_submission(d / who, {"ex0_weighted_sum": with_keyring("ex0_weighted_sum", desc, WAYS, who)})
    proc = batch(d, "--out", out, "--jobs", "1", "--sandbox", mode, "--no-report", tmp=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = by_id(read_csv(out))
    for who in ("anna", "ben"):
        results = results_of(out, who)
        assert "FOUND IN THE KEYRING" not in json.dumps(results, ensure_ascii=False), results
        assert points(rows[who]) == maxima(results), rows[who]


# --- the filter itself ----------------------------------------------------------

KEY_SPEC_USER_KEYRING = -4
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET = 0x10000000, 0x00020000, 0x40000000
SIGCHLD = 17

# The numbers from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl,
# include/uapi/asm-generic/unistd.h), written out here again: a wrong number in
# confine.py's tables shows as a call the filter does not refuse.
KERNEL_NUMBERS = {
    "x86_64": {
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "userfaultfd": 323,
        "perf_event_open": 298,
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
        "clone": 56,
        "clone3": 435,
    },
    "aarch64": {
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "userfaultfd": 282,
        "perf_event_open": 241,
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
        "clone": 220,
        "clone3": 435,
    },
}
# name -> arguments that the kernel would accept, or refuse with another
# error than EPERM where it could (a bad pointer, a bad descriptor): EPERM
# then means the filter. Pointers are given as None (NULL).
REFUSED_CALLS = {
    "add_key": (b"user", b"attn-test-refused", b"x", 1, 0),  # keyring 0: EINVAL, never a key left behind
    "request_key": (b"user", b"attn-test-refused", None, 0),
    "keyctl": (0, KEY_SPEC_USER_KEYRING, 0),  # KEYCTL_GET_KEYRING_ID
    "io_uring_setup": (1, None),
    "io_uring_enter": (-1, 0, 0, 0, None, 0),
    "io_uring_register": (-1, 0, None, 0),
    "userfaultfd": (0,),
    "perf_event_open": (None, 0, -1, -1, 0),
    "bpf": (0, None, 0),
    "unshare": (CLONE_NEWUSER,),
    "setns": (-1, 0),
    "mount": (None, None, None, 0, None),
    "umount2": (None, 0),
    "pivot_root": (None, None),
    "chroot": (None,),
    "fsopen": (None, 0),
    "fsconfig": (-1, 0, None, None, 0),
    "fsmount": (-1, 0, 0),
    "fspick": (-1, None, 0),
    "open_tree": (-1, None, 0),
    "move_mount": (-1, None, -1, None, 0),
    "mount_setattr": (-1, None, 0, None, 0),
    "init_module": (None, 0, None),
    "finit_module": (-1, None, 0),
    "delete_module": (None, 0),
    "kexec_load": (0, 0, None, 0),
    "kexec_file_load": (-1, -1, 0, None, 0),
}
# clone with a namespace flag: unfiltered, CLONE_NEWUSER makes a user
# namespace without any capability (the others need one, which it then holds).
NAMESPACE_CLONES = {"clone NEWUSER": CLONE_NEWUSER | SIGCHLD, "clone NEWNS": CLONE_NEWNS | SIGCHLD, "clone NEWNET": CLONE_NEWNET | SIGCHLD}


def _arg(a):
    return ctypes.c_long(a) if isinstance(a, int) else a


def _in_confined_child(probe) -> dict:
    """Run ``probe`` in a new process confined as a worker is, and return
    what it returned (a JSON-able dict). The process is spawned, not forked
    from this one: the test session has other threads (the attack
    catalogue's gradings in the background, torch's pool), and a fork taken
    while one of them holds a lock hangs in the child for good."""
    ctx = multiprocessing.get_context("spawn")
    read_end, write_end = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_confined, args=(probe, write_end))
    child.start()
    write_end.close()
    try:
        result = read_end.recv() if read_end.poll(300) else {"error": "no answer in 300 s"}
    except EOFError:
        result = {"error": f"the child ended without answering (exit status {child.exitcode})"}
    child.join(10)
    if child.is_alive():
        child.kill()
        child.join()
    assert "error" not in result, result["error"]
    return result


def _confined(probe, conn) -> None:
    """The spawned child: confine itself, run ``probe``, send back what it found."""
    try:
        missing = confine.confine()
        result = {"missing": missing, **probe()}
    except BaseException as exc:  # noqa: BLE001 - report it to the test
        result = {"error": repr(exc)}
    conn.send(json.loads(json.dumps(result)))  # as JSON would carry it: tuples become lists
    conn.close()


def _probe_refused() -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    nr = KERNEL_NUMBERS[os.uname().machine]
    errors = {}
    for name, args in REFUSED_CALLS.items():
        ctypes.set_errno(0)
        ret = libc.syscall(ctypes.c_long(nr[name]), *map(_arg, args))
        errors[name] = (ret, ctypes.get_errno())
    for name, flags in NAMESPACE_CLONES.items():
        ctypes.set_errno(0)
        # clone(flags, NULL stack): a plain fork if it were allowed; the
        # child (there is none once refused) would exit at once.
        ret = libc.syscall(ctypes.c_long(nr["clone"]), ctypes.c_long(flags), None, None, None, None)
        if ret == 0:
            os._exit(0)
        if ret > 0:
            os.waitpid(ret, 0)
        errors[name] = (ret, ctypes.get_errno())
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(nr["clone3"]), None, ctypes.c_size_t(0))
    errors["clone3"] = (ret, ctypes.get_errno())
    with open("/proc/self/status") as f:
        seccomp = [line.split()[1] for line in f if line.startswith("Seccomp:")]
    return {"errors": errors, "seccomp": seccomp}


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine not in ("x86_64", "aarch64"), reason="the filter is for Linux on x86_64 and aarch64")
def test_confined_child_is_refused_the_new_calls():
    got = _in_confined_child(_probe_refused)
    assert got["missing"] == [] and got["seccomp"] == ["2"], got
    wrong = {name: got["errors"][name] for name in [*REFUSED_CALLS, *NAMESPACE_CLONES] if got["errors"][name] != [-1, errno.EPERM]}
    assert not wrong, f"not refused with EPERM (return value, errno): {wrong}"
    assert got["errors"]["clone3"] == [-1, errno.ENOSYS], got["errors"]["clone3"]


def _probe_still_works() -> dict:
    out = {}
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    out["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    box = []
    t = threading.Thread(target=lambda: box.append(threading.get_native_id()))
    t.start()
    t.join()
    out["thread"] = len(box) == 1 and box[0] != threading.get_native_id()
    out["subprocess"] = subprocess.run(["true"]).returncode
    out["subprocess_output"] = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout.strip()
    # torch's own threads (intra-op pool), as a check on a big tensor starts them
    import torch

    torch.set_num_threads(2)
    out["torch"] = float(torch.ones(512, 512).sum())
    return out


def test_fork_threads_and_subprocesses_still_work_when_confined():
    got = _in_confined_child(_probe_still_works)
    assert got["missing"] == [], got
    assert got["fork"] == 7 and got["thread"] is True, got
    assert got["subprocess"] == 0 and got["subprocess_output"] == "42", got
    assert got["torch"] == 512 * 512, got


# --- the filter's program, read as the kernel would -------------------------------


def run_filter(prog: list, nr: int, arch: int, args=(0,) * 6) -> int:
    """What ``prog`` returns for a call: a small interpreter of the classic
    BPF instructions filter_program uses."""
    words = {0: nr & 0xFFFFFFFF, 4: arch}
    for i, a in enumerate(args):
        words[16 + 8 * i] = a & 0xFFFFFFFF
        words[20 + 8 * i] = (a >> 32) & 0xFFFFFFFF
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        pc += 1
        if code == 0x20:  # LD W ABS
            acc = words[k]
        elif code == 0x06:  # RET K
            return k
        elif code in (0x15, 0x35, 0x45):  # JEQ, JGE, JSET (K)
            hit = acc == k if code == 0x15 else acc >= k if code == 0x35 else bool(acc & k)
            pc += jt if hit else jf
        else:
            raise AssertionError(f"unknown instruction {code:#x}")


ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# Calls children make all the time, which must stay allowed.
EVERYDAY = {
    "x86_64": {"read": 0, "write": 1, "openat": 257, "mmap": 9, "futex": 202, "wait4": 61, "execve": 59, "vfork": 58, "getpid": 39},
    "aarch64": {"read": 63, "write": 64, "openat": 56, "mmap": 222, "futex": 98, "wait4": 260, "execve": 221, "getpid": 172},
}


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_filter_program_for_each_architecture(machine):
    """Both tables, whichever machine runs the test: every new call refused,
    clone refused with namespace flags only, clone3 ENOSYS, everyday calls
    allowed."""
    prog = confine.filter_program(machine)
    arch = AUDIT_ARCH[machine]
    numbers = KERNEL_NUMBERS[machine]
    for name in REFUSED_CALLS:
        assert run_filter(prog, numbers[name], arch) == EPERM, name
    assert run_filter(prog, numbers["clone3"], arch) == ENOSYS
    fork_flags = 0x01200000 | SIGCHLD  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, as glibc's fork
    thread_flags = 0x003D0F00  # glibc's pthread_create: VM, FS, FILES, SIGHAND, THREAD, SYSVSEM, SETTLS, *_TID
    assert run_filter(prog, numbers["clone"], arch, (fork_flags,)) == ALLOW
    assert run_filter(prog, numbers["clone"], arch, (thread_flags,)) == ALLOW
    for flag in (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, 0x02000000, 0x04000000, 0x08000000, 0x20000000):
        assert run_filter(prog, numbers["clone"], arch, (flag | SIGCHLD,)) == EPERM, hex(flag)
    for name, nr in EVERYDAY[machine].items():
        assert run_filter(prog, nr, arch) == ALLOW, name
