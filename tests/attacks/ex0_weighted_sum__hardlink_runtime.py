"""Attack: from inside the child, make hard links to the reference
solutions: in place of every file of the submission folder itself (found
from this file's name as the grader reported it), so that the next grading
reads the reference; in the private copy; and in /tmp. Then zeros as answers.

Without the sandbox the child can write the submission folder and the links
are made (SANDBOX_ONLY in test_attacks.py): the test checks that the grader
refuses every linked file when it reads the folder again, so they earn
nothing. In the sandbox neither the solutions nor the submission folder are
there, and the private copy is read-only: no link, the folder is unchanged.
"""
import os
import sys

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
SOLUTIONS = os.path.join(PROJECT, "solutions")
SUBMISSION = os.path.dirname(os.path.abspath(sys._getframe().f_code.co_filename))
linked, failed = [], []


def _link(source: str, dest: str) -> None:
    tmp = os.path.join(os.path.dirname(dest), f".{TAG}.tmp")
    try:
        os.link(source, tmp)
        os.replace(tmp, dest)
        linked.append(dest)
    except OSError as exc:
        failed.append(f"{dest}: {type(exc).__name__}")


def _link_everything() -> None:
    try:
        names = sorted(n for n in os.listdir(SOLUTIONS) if n.endswith(".py"))
    except OSError as exc:
        failed.append(f"{SOLUTIONS}: {type(exc).__name__}")
        names = [f"ex{i}.py" for i in range(7)]
    for name in names:
        source = os.path.join(SOLUTIONS, name)
        if os.path.exists(os.path.join(SUBMISSION, name)):
            _link(source, os.path.join(SUBMISSION, name))
        _link(source, os.path.join(os.getcwd(), name))
        _link(source, os.path.join("/tmp", name))


_link_everything()
print(f"linked {len(linked)}, failed {len(failed)}", flush=True)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
