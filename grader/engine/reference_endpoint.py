"""The reference side of a check: the solution, loaded from its file and run
in this process, answering the same requests as the submission."""

import types

import torch

from grader.authoring.endpoints import Endpoint
from grader.child import ops, standins


class ReferenceEndpoint(Endpoint):
    """Runs requests on the reference solution, loaded from a file in this process."""

    def __init__(self, exercise_id: str, path: str):
        self.exercise_id = exercise_id
        self.namespace = _load_reference(exercise_id, path)

    def request(self, request: dict) -> dict:
        torch.set_grad_enabled(True)
        return ops.execute(self.namespace, request)


def _load_reference(exercise_id: str, path: str):
    mod = types.ModuleType(f"reference_{exercise_id}")
    mod.__file__ = path
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec")
    saved = standins.install_siblings(exercise_id)  # the classes of earlier exercises; the reference calls no earlier function
    try:
        exec(code, mod.__dict__)
    finally:
        standins.restore_siblings(saved)
    return mod
