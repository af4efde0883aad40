"""Attack: write 96 MB of files wherever the child may write, 8 MB at a time,
and say how much it managed in the message of an exception from every call
(so it is shown in the report). 0 points.

In the sandbox the places are the root, /dev, /dev/shm, /tmp and /work:
memory-backed file systems, which a memory limit does not count, so only
their own caps hold (test_attacks.py checks the total stays within the
sandbox's /tmp and /dev/shm sizes). Without the sandbox the files go into
the child's private copy of the submission (removed with it) or, where it
cannot write that (a root grader's children run as a user of their own),
its own TMPDIR (removed with all that user owns); there nothing caps the
total but the disk.
"""
import os
import tempfile

import torch

CHUNK = b"\0" * (8 << 20)
TARGET = 96 << 20


def _sandboxed() -> bool:
    """In the sandbox the grader's zygote is process 1."""
    try:
        with open("/proc/1/cmdline", "rb") as f:
            return b"grader.child.zygote" in f.read().split(b"\0")
    except OSError:
        return False


PLACES = ["/", "/dev", "/dev/shm", "/tmp", "/work"] if _sandboxed() else [os.getcwd(), tempfile.gettempdir()]
written = 0
for place in PLACES:
    for i in range(TARGET // len(CHUNK)):
        if written >= TARGET:
            break
        try:
            with open(os.path.join(place, f"fill-{i}.bin"), "wb") as f:
                f.write(CHUNK)
            written += len(CHUNK)
        except OSError:
            break


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    raise RuntimeError(f"{written} bytes written in all")
