"""Attack: read the hidden check of this exercise and smuggle it out where a
line-by-line filter cannot see it:

- compressed and base64-encoded on one line, printed at import and raised as
  the message of an exception (the grader keeps 2000 characters of a message,
  enough for the whole file);
- returned: a call whose answer has three numbers or more returns the bytes
  of the file as the numbers, which the feedback shows as "got".

No right answer: 0 points. Without the sandbox this works: what a child can
read it can encode, and the report carries it (SANDBOX_ONLY in
test_attacks.py, which decodes both to show that the attack ran). In the
sandbox the checks are not there to read: the message says so and the
numbers are zeros.
"""
import base64
import os
import sys
import zlib

import torch

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
try:
    with open(os.path.join(PROJECT, "checks", "hidden", "test_ex0_weighted_sum.py"), "rb") as f:
        SECRET = f.read()
    LEAK = "LEAK:" + base64.b64encode(zlib.compress(SECRET, 9)).decode()
except OSError as exc:
    SECRET = b""
    LEAK = f"nothing to leak ({type(exc).__name__})"
print(LEAK, flush=True)
_offset = [max(SECRET.find(b"def test_"), 0)]


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    shape = values.shape[:-2] + values.shape[-1:]
    n = shape.numel()
    if n < 3:
        raise ValueError(LEAK)
    chunk = SECRET[_offset[0] : _offset[0] + n]
    _offset[0] += len(chunk)
    numbers = torch.zeros(n, dtype=values.dtype)
    numbers[: len(chunk)] = torch.tensor(list(chunk), dtype=values.dtype)
    return numbers.reshape(shape)
