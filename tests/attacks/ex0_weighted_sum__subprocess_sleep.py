"""Attack: start programs that outlive the exercise: ``sleep 1000`` (in the
child's process group and in a new session) and a shell that ignores SIGTERM,
then give correct answers.

The answers are right, so full marks; the programs must all be killed when
the exercise is over. They carry the test's tag in their environment (and the
shell in its argv) so the test can see whether any is left.
"""
import ctypes
import os
import subprocess

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: /proc/PID/comm
os.environ["ATTACK_TAG"] = TAG

STARTED = [
    subprocess.Popen(["sleep", "1000"]),
    subprocess.Popen(["sleep", "1000"], start_new_session=True),
    subprocess.Popen(
        ["sh", "-c", "trap '' TERM HUP INT; while :; do sleep 1; done", TAG],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ),
]


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    STARTED.append(subprocess.Popen(["sleep", "1000"], start_new_session=True))
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
