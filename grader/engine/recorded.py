"""Reference answers recorded once, for a copy of the course without solutions.

The student release ships the public checks but not ``solutions/``. Its
checks still call ``ref.f(x)``: the answers were recorded by running the
public checks against the real reference when the release was built, and are
looked up by a hash of the request. Answers are tensors and plain values,
saved with ``torch.save`` and read back with ``weights_only=True``.
"""
import hashlib
import struct

import torch

from grader.engine.endpoints import Endpoint
from grader.engine.reference_endpoint import ReferenceEndpoint

ANSWERS_FILE = "reference_answers.pt"


def request_key(request: dict) -> str:
    """A stable hash of a request: same inputs, same key, in any process."""
    h = hashlib.sha256()
    update = h.update
    fed: dict[int, int] = {}  # id of a tensor of the request -> the order it was first fed in

    def feed(obj):
        # Tensors first: a request is mostly state dicts of them (a batch hashes
        # every reference request of every student: this loop is hot). A
        # tensor met again (one state in every request of a batch) is fed as
        # a reference to its first appearance: the same key for the same request.
        if isinstance(obj, torch.Tensor):
            if id(obj) in fed:
                update(b"R%d" % fed[id(obj)])
                return
            fed[id(obj)] = len(fed)
            t = obj.detach()
            update(b"T%s%s" % (str(t.dtype).encode(), str(tuple(t.shape)).encode()))
            if t.numel():
                flat = t.reshape(-1)  # the values in order, whatever the layout: a view asks what its copy asks
                if flat.stride(0) != 1:
                    flat = flat.clone(memory_format=torch.contiguous_format)
                update(memoryview(flat.cpu().view(torch.uint8).numpy()))
        elif isinstance(obj, dict):
            update(b"D%d" % len(obj))
            for k in sorted(obj, key=str):
                update(b"S" + str(k).encode())  # what feed(str(k)) wrote
                feed(obj[k])
        elif isinstance(obj, (list, tuple)):
            update(b"L%d" % len(obj))
            for v in obj:
                feed(v)
        elif isinstance(obj, bool):
            update(b"B1" if obj else b"B0")
        elif isinstance(obj, int):
            update(b"I" + str(obj).encode())
        elif isinstance(obj, float):
            update(b"F" + struct.pack(">d", obj))
        elif obj is None:
            update(b"N")
        else:
            update(b"S" + str(obj).encode())

    feed({k: v for k, v in request.items() if k != "id"})
    return h.hexdigest()


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
    each once per grader process."""

    def __init__(self, real: ReferenceEndpoint, memo: dict):
        self.real, self.memo = real, memo

    def request(self, request: dict) -> dict:
        key = request_key(request)
        if key not in self.memo:
            self.memo[key] = _detached(self.real.request(request))
        return _detached(self.memo[key])


class ReplayReference(Endpoint):
    """Answers from the recorded book; a request not in it is a grader fault."""

    def __init__(self, exercise_id: str, book: dict):
        self.exercise_id, self.book = exercise_id, book

    def request(self, request: dict) -> dict:
        key = request_key(request)
        if key not in self.book:
            raise LookupError(
                f"no recorded reference answer for this {self.exercise_id} request: "
                "the checks changed after the release was built (rebuild it with python -m grader release)"
            )
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
