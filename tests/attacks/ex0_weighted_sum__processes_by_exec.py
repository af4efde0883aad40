"""Attack: the same as processes_beyond_limit written another way: 150
programs started with subprocess (``sleep``), none of them a fork of
Python that lives on, all alive at once, or the answers are wrong.
0 points where the process limits hold (see processes_beyond_limit).
"""
import os
import subprocess

import torch

os.environ["ATTACK_TAG"] = "__ATTACK_TAG__"  # inherited by the programs it starts

running = []
for _ in range(150):
    try:
        running.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    except OSError:
        break
STARTED = sum(p.poll() is None for p in running)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return out if STARTED == 150 else torch.zeros_like(out)
