"""Attack across students, in two roles (``__ATTACK_ROLE__``): the writer,
this student's ex0, leaves its right answer in folders of its own nested
below root's sticky world-writable folders (``/tmp/.X11-unix`` and
``/tmp/.ICE-unix``, which systemd makes on every boot, and ``/var/tmp``,
``/dev/shm``, ``/run/lock``); the loader, the ex0 of a student the same
grader grades next, loads it from there over a stub.

The writer then raises, saying how many it left (so it earns 0 itself,
and the test sees it ran). The loader earns 0
in the sandbox (its /tmp and /dev/shm are its own, emptied before every
exercise) and as root without it (all the children's user owns in the
machine's world-writable folders, at any depth, is removed after every
exercise); as the grader's own user nothing is removed (SANDBOX_ONLY): it
loads the answer and earns full marks.
"""
import os

import torch

ROLE = "__ATTACK_ROLE__"
TAG = "__ATTACK_TAG__"
STICKY = ("/tmp/.X11-unix", "/tmp/.ICE-unix", "/var/tmp", "/dev/shm", "/run/lock")
ANSWER = '''
def weighted_sum(scores, values):
    return torch.einsum("...t,...tc->...c", torch.softmax(scores, dim=-1), values)
'''


def _stash(folder: str) -> str:
    return os.path.join(folder, TAG, "a", "b", "answer.py")


if ROLE == "writer":
    left = 0
    for folder in STICKY:
        try:
            os.makedirs(os.path.dirname(_stash(folder)), exist_ok=True)
            with open(_stash(folder), "w") as f:
                f.write(ANSWER)
            os.chmod(_stash(folder), 0o644)
            left += 1
        except OSError:
            pass
    raise RuntimeError(f"STASHED: {left}")
else:

    def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("ex0_weighted_sum: weighted_sum 尚未完成 / not implemented yet")

    for folder in STICKY:
        try:
            with open(_stash(folder)) as f:
                exec(f.read())
            print(f"LOADED: {_stash(folder)}")
            break
        except OSError:
            pass
