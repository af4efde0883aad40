"""Reference answers recorded once, for a copy of the course without solutions.

The student release ships the public checks but not ``solutions/``. Its
checks still call ``ref.f(x)``: the answers were recorded by running the
public checks against the real reference when the release was built, and are
looked up by a hash of the request. Answers are tensors and plain values,
saved with ``torch.save`` and read back with ``weights_only=True``.
"""

import hashlib
import json

import torch

from grader.authoring.endpoints import Endpoint
from grader.child.protocol import values_bytes
from grader.engine.reference_endpoint import ReferenceEndpoint

ANSWERS_FILE = "reference_answers.pt"


def request_key(request: dict) -> str:
    """A stable hash of a request: same inputs, same key, in any process.

    The request's structure is written by the C JSON encoder (a batch hashes
    every reference request of every student: this is hot), each tensor in
    it as a placeholder holding its dtype and shape, its values hashed after:
    the values in order, whatever the layout (a view asks what its copy
    asks). A tensor met again (one state in every request of a batch) is a
    reference to its first appearance: the same key for the same request."""
    tensors: list = []
    seen: dict[int, int] = {}  # id of a tensor of the request -> its place in ``tensors``

    def placeholder(obj):
        if isinstance(obj, torch.Tensor):
            if id(obj) in seen:
                return ["$R", seen[id(obj)]]
            seen[id(obj)] = len(tensors)
            tensors.append(obj)
            return ["$T", str(obj.dtype), list(obj.shape)]
        return ["$S", str(obj)]

    body = {k: v for k, v in request.items() if k != "id"}
    try:
        skeleton = json.dumps(body, sort_keys=True, default=placeholder, allow_nan=True)
    except TypeError:  # keys json cannot sort (of mixed types): as strings
        tensors.clear()
        seen.clear()
        skeleton = json.dumps(_str_keys(body), sort_keys=True, default=placeholder, allow_nan=True)
    h = hashlib.sha256(skeleton.encode())
    for t in tensors:
        if t.numel():
            h.update(values_bytes(t))
    return h.hexdigest()


def _str_keys(obj):
    if isinstance(obj, dict):
        return {str(k): _str_keys(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_str_keys(v) for v in obj]
    return obj


class RecordingReference(ReferenceEndpoint):
    """The real reference, keeping every answer it gives."""

    def __init__(self, exercise_id: str, path: str, book: dict):
        super().__init__(exercise_id, path)
        self.book = book

    def request(self, request: dict) -> dict:
        response = super().request(request)
        self.book[request_key(request)] = _detached(response)
        return response


class MemoReference(Endpoint):
    """The real reference, remembering its answers across submissions: a
    batch asks the same questions of every student, so the reference answers
    each once per grader process. Every student gets the same tensors (in
    containers of their own): a check must not change an answer in place,
    and one that did is found the next time the answer is asked for."""

    def __init__(self, real: ReferenceEndpoint, memo: dict):
        self.real, self.memo = real, memo

    def request(self, request: dict) -> dict:
        key = request_key(request)
        if key not in self.memo:
            answer = _detached(self.real.request(request))
            self.memo[key] = (answer, _versions(answer))
        answer, versions = self.memo[key]
        if _versions(answer) != versions:
            raise RuntimeError("a check changed a reference answer in place: change a copy (.clone())")
        return _shared(answer)


def _versions(obj, out=None) -> list:
    """The version counter of every tensor in ``obj``, in order."""
    out = [] if out is None else out
    if isinstance(obj, torch.Tensor):
        out.append(obj._version)
    elif isinstance(obj, dict):
        for v in obj.values():
            _versions(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _versions(v, out)
    return out


def _shared(obj):
    """``obj``'s containers anew, its tensors the same."""
    if isinstance(obj, dict):
        return {k: _shared(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shared(v) for v in obj]
    return obj


class ReplayReference(Endpoint):
    """Answers from the recorded book; a request not in it is a grader fault."""

    def __init__(self, exercise_id: str, book: dict):
        self.exercise_id, self.book = exercise_id, book

    def request(self, request: dict) -> dict:
        key = request_key(request)
        if key not in self.book:
            raise LookupError(f"no recorded reference answer for this {self.exercise_id} request: the checks changed after the release was built (rebuild it with python -m grader release)")
        return _detached(self.book[key])  # a copy: a check may change what it gets


def _detached(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        return {k: _detached(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_detached(v) for v in obj]
    return obj


def save(book: dict, path: str) -> None:
    torch.save(book, path)


def load(path: str) -> dict:
    return torch.load(path, weights_only=True, map_location="cpu")
