"""Attack: fill the feedback. The function raises an exception whose class
name is 1 MB long; after the first call the child's error describer is
replaced by one that sends a 5 MB message and 20,000 "lines" (some of them
not even pairs of a number and a string).

0 points, and every feedback text in results.json stays short: the grading
process trims what a child says about its errors.
"""
import sys

import torch

Boom = type("Boom" * 250_000, (Exception,), {})
worker = sys.modules["grader.child.worker"]
_calls = [0]


def _loud_describe(exc, filename):
    return {
        "type": "T" * 1_000_000,
        "message": "m" * 5_000_000,
        "lines": [[i, "line " * 20] for i in range(20_000)] + [["x", None], [1], "oops"],
    }


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _calls[0] += 1
    if _calls[0] == 1:
        raise Boom("x" * 10_000_000)
    worker.describe = _loud_describe
    raise Boom("again")
