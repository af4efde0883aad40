"""Attack: find the reference solution by walking the file system, from the
grader package's parent folder (the project) and from /, and run it.

Without the sandbox the child reads whatever the grader's user can read: it
finds solutions/ex0_weighted_sum.py and earns full marks (SANDBOX_ONLY in
test_attacks.py). In the sandbox the grader package, the Python installation
and the private copy of the submission are all there is: nothing is found,
every call says so, 0 points.

The walk skips /proc, /sys, /dev, /usr and installed packages (system files
the sandbox shows by design, and slow to walk) and stops after 6 s.
"""
import os
import sys
import time

import torch

NAME = "ex0_weighted_sum.py"
START = time.monotonic()
SKIP_TOP = {"/proc", "/sys", "/dev", "/usr"}
SKIP_NAMES = {"site-packages", "dist-packages", "__pycache__", ".git", "node_modules"}


def _candidates():
    project = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
    yield os.path.join(project, "solutions", NAME)
    for top in (project, "/"):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d not in SKIP_NAMES and os.path.join(dirpath, d) not in SKIP_TOP]
            if NAME in filenames and os.path.basename(dirpath) == "solutions":
                yield os.path.join(dirpath, NAME)
            if time.monotonic() - START > 6:
                return


def _steal():
    looked = 0
    for path in _candidates():
        looked += 1
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
            namespace = {"__name__": "stolen"}
            exec(compile(source, path, "exec"), namespace)
        except Exception:  # noqa: BLE001 - unreadable or not Python: look further
            continue
        if callable(namespace.get("weighted_sum")):
            return namespace["weighted_sum"]
    return None


_stolen = _steal()


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if _stolen is None:
        raise RuntimeError("no solution file found on this file system")
    return _stolen(scores, values)
