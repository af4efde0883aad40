"""Attack: three forks at import each touch 1 GiB and hold it, and the
answers are right only if all three held theirs at once: 3 GiB under a
2 GiB limit, which a per-process limit (RLIMIT_AS) cannot see.

Where the grader can make a control group (as root), the memory of all of a
submission's processes counts against one limit: one of the forks is killed
by the kernel, the answers are wrong, 0 points (the old grader gave full
marks). Elsewhere it earns full marks (test_attacks.py: EXPECTED_POINTS).
"""
import ctypes
import mmap
import os
import select
import signal
import time

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

GIB = 1 << 30
r, w = os.pipe()
forks = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            block = mmap.mmap(-1, GIB)
            for i in range(0, GIB, mmap.PAGESIZE):
                block[i] = 1
            os.write(w, b"x")
            time.sleep(60)
        finally:
            os._exit(0)
    forks.append(pid)
os.close(w)
# Until all three hold their GiB, or one is gone (killed by the kernel where
# the group's limit counts them together), or 8 s have passed: within the
# import limit, also as the tests shorten it (10 s), and not waiting out the
# time the others would sleep once one has been killed.
held, end, gone = b"", time.monotonic() + 8, set()


def _one_is_gone() -> bool:
    for pid in forks:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                gone.add(pid)
        except ChildProcessError:
            gone.add(pid)
    return bool(gone)


while len(held) < 3 and time.monotonic() < end and not _one_is_gone():
    ready, _, _ = select.select([r], [], [], min(0.1, max(0.0, end - time.monotonic())))
    if ready:
        chunk = os.read(r, 3)
        if not chunk:
            break  # every fork is gone
        held += chunk
HELD_AT_ONCE = len(held)
for pid in set(forks) - gone:  # a fork reaped above is no longer ours to signal
    try:
        os.kill(pid, signal.SIGKILL)
        # Reaped, so its GiB is back before the checks run: on a loaded
        # machine a fork still exiting held it when the first check
        # allocated, and the group's limit ended this process instead.
        os.waitpid(pid, 0)
    except OSError:
        pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out if HELD_AT_ONCE == 3 else torch.zeros_like(out)
