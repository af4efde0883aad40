"""The stub (after a grading that tried to break the grader): must earn 0, and be graded at all."""
import os

import torch

for folder in ("/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"), os.getcwd()):
    for name in ("attention_leak__RUN__.py", os.path.join("deep", "er", "attention_leak__RUN__.py")):
        try:
            with open(os.path.join(folder, name)) as f:
                exec(f.read())
        except OSError:
            pass

if "weighted_sum" not in globals():

    def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("ex0_weighted_sum: weighted_sum 尚未完成 / not implemented yet")
