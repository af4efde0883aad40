"""How requests and responses cross the process boundary.

A message is an 8-byte length, then a 4-byte header length, a JSON header and
the raw bytes of the tensors it names. JSON and raw numbers are all a reader
ever builds: nothing is unpickled, no code can run, and every tensor's dtype,
shape and byte range is checked against the message before it is made. (This
is also several times faster than ``torch.save``/``torch.load`` for the small
tensors the checks exchange.)

In the header, a tensor is ``{"$t": [offset, nbytes, dtype, shape]}``, a dict
is ``{"$d": {...}}`` (string keys only) and a list is a JSON list. A request
may keep a tensor's memory layout (``layouts=True``: the grader's requests,
whose inputs are transposed, sliced or expanded views as often as not, since
a stub's domain allows them, ``grader/authoring/domain.py``): the tensor is then
``{"$t": [offset, nbytes, dtype, shape, strides, storage_offset]}``, its
bytes the span of storage it reads, and the reader makes the same view of
them, after checking that every element it reads lies inside those bytes.

Every string a reader gets, dict keys included, has its control characters
made visible (``grader.text.visible``): this is where text a submission wrote
(an exception's type, message and lines, a type's name, parameter names)
enters the grader, on its way to the teacher's terminal, results.json and
feedback.md, so no later code can forget it. The grader's own requests hold
no such characters, so for the child reading them nothing changes.
"""

import json
import math
import os
import select
import struct
import time
import weakref

import torch

from grader.text import visible

MAX_MESSAGE = 8 * 1024 * 1024  # a message bigger than this is refused unread (real ones are a few KB)
MAX_DEPTH = 32  # nesting of containers in a message
MAX_BUILT = 8 * MAX_MESSAGE  # bytes of tensors one message may make (several may name the same bytes)
_HEADER = struct.Struct(">Q")
_JSON_LEN = struct.Struct(">I")
DTYPES = {
    str(d): d
    for d in (
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.bool,
    )
}


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed message."""


class Timeout(Exception):
    """No complete message arrived before the deadline."""


class Closed(Exception):
    """The other side closed its end (usually: the child died)."""


def _span(t: torch.Tensor) -> int | None:
    """How many elements of storage the view ``t`` reads, from its storage
    offset on; None where it is not worth keeping its layout (contiguous,
    empty, or a small view of a large storage: copied as it is seen)."""
    if t.is_contiguous() or t.numel() == 0 or t.layout is not torch.strided:
        return None
    span = 1 + sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return span if span <= 4 * t.numel() + 64 else None


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The bytes of ``t``'s elements in order, whatever its layout (detached,
    on the CPU; numpy copies from any strides, a one-element tensor's
    stride of 2 included)."""
    if not t.is_contiguous():
        t = t.contiguous()
    if t.dtype is torch.bfloat16:  # numpy has no bfloat16: its bytes as integers
        t = t.view(torch.int16)
    elif t.is_complex():  # a conjugate view's values, which numpy() refuses
        t = t.resolve_conj().resolve_neg()
    return t.numpy().tobytes()


class _Remembered:
    """The bytes of tensors, remembered while each tensor lives unchanged
    (its version counter, which every in-place change moves on): the
    grading process sends every student of a batch the same draws and
    states, the same tensor objects, and hashes them for the reference's
    memo (``grader.engine.recorded``). Entries go with their tensors."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[int, str], tuple] = {}

    def bytes_of(self, t: torch.Tensor, kind: str, make) -> bytes:
        key = (id(t), kind)
        try:
            version = t._version
        except RuntimeError:  # an inference tensor has no version counter
            return make()
        entry = self._by_key.get(key)
        if entry is not None and entry[0]() is t and entry[1] == version:
            return entry[2]
        raw = make()
        by_key = self._by_key

        def forget(_, key: tuple[int, str] = key) -> None:
            by_key.pop(key, None)

        by_key[key] = (weakref.ref(t, forget), version, raw)
        return raw


_REMEMBERED = _Remembered()  # used for the grading process's requests only (layouts=True)


def values_bytes(t: torch.Tensor) -> bytes:
    """``tensor_bytes`` of ``t``, remembered (``_Remembered``): for the grading process."""
    return _REMEMBERED.bytes_of(t, "values", lambda: tensor_bytes(t.detach().cpu()))


def encode(obj, layouts: bool = False) -> bytes:
    """``obj`` as one message; ``layouts``: tensors keep their strides (the
    grading process's requests, whose tensors' bytes are remembered). A
    tensor that appears more than once (one state dict in every request of a
    batch) is written once, and each appearance names the same bytes (the
    reader makes a tensor of its own for each)."""
    blobs: list[bytes] = []
    offset = 0
    written: dict[int, dict] = {}  # id of a tensor of obj -> its header entry (obj keeps it alive meanwhile)

    def walk(o, depth=0):
        if isinstance(o, torch.Tensor):
            entry = written.get(id(o))
            if entry is None:
                entry = written[id(o)] = tensor(o)
            return entry
        if depth > MAX_DEPTH:
            raise ValueError("nested too deeply")
        kind = type(o)
        if kind is dict:
            return {"$d": {str(k): walk(v, depth + 1) for k, v in o.items()}}
        if kind is list or kind is tuple:
            return [walk(v, depth + 1) for v in o]
        if o is None or kind is bool or kind is int or kind is float or kind is str:
            return o
        if isinstance(o, dict):
            return {"$d": {str(k): walk(v, depth + 1) for k, v in o.items()}}
        if isinstance(o, (list, tuple)):
            return [walk(v, depth + 1) for v in o]
        raise TypeError(f"cannot send {type(o).__name__}")

    def tensor(o: torch.Tensor) -> dict:
        nonlocal offset
        t = o.detach()
        if not t.is_cpu:
            t = t.cpu()
        name = str(t.dtype)
        if name not in DTYPES:
            raise TypeError(f"cannot send a tensor of {t.dtype}")
        span = _span(t) if layouts else None
        if span is not None:
            raw = _REMEMBERED.bytes_of(o, "span", lambda: tensor_bytes(torch.as_strided(t, (span,), (1,), t.storage_offset())))
            entry = {"$t": [offset, len(raw), name, list(t.shape), list(t.stride()), 0]}
        else:
            if not t.numel():
                raw = b""
            else:
                raw = _REMEMBERED.bytes_of(o, "values", lambda: tensor_bytes(t)) if layouts else tensor_bytes(t)
            entry = {"$t": [offset, len(raw), name, list(t.shape)]}
        blobs.append(raw)
        offset += len(raw)
        return entry

    header = json.dumps(walk(obj), separators=(",", ":")).encode()
    body = _JSON_LEN.pack(len(header)) + header + b"".join(blobs)
    return _HEADER.pack(len(body)) + body


def decode(data: bytes):
    """Read one message, checking everything; never runs code from it."""
    try:
        (n,) = _JSON_LEN.unpack_from(data, 0)
        header = json.loads(data[4 : 4 + n].decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - any failure means "not a message"
        raise ProtocolError(f"unreadable message: {type(exc).__name__}") from None
    blob = memoryview(data)[4 + n :]
    built = [0]

    def build(o, depth=0):
        if depth > MAX_DEPTH:
            raise ProtocolError("unreadable message: nested too deeply")
        kind = type(o)
        if kind is list:
            return [build(v, depth + 1) for v in o]
        if kind is str:
            return visible(o)
        if o is None or kind is bool or kind is int or kind is float:
            return o
        if kind is dict and len(o) == 1:
            if type(o.get("$d")) is dict:
                return {visible(k): build(v, depth + 1) for k, v in o["$d"].items()}
            spec = o.get("$t")
            if spec is not None:
                built[0] += spec[1] if type(spec) is list and len(spec) > 1 and type(spec[1]) is int else 0
                if built[0] > MAX_BUILT:
                    raise ProtocolError("unreadable message: its tensors name more bytes than any message needs")
                return _tensor(spec, blob)
        if kind is dict:
            raise ProtocolError("unreadable message: unknown object")
        raise ProtocolError("unreadable message: unknown value")

    try:
        return build(header)
    except RecursionError:
        raise ProtocolError("unreadable message: nested too deeply") from None


def _tensor(spec, blob: memoryview) -> torch.Tensor:
    try:
        start, nbytes, dtype_name, shape = spec[:4]
        strides, storage_offset = spec[4:] if len(spec) == 6 else (None, 0)
        dtype = DTYPES[dtype_name]
        valid = (
            len(spec) in (4, 6)
            and type(start) is int
            and type(nbytes) is int
            and 0 <= start
            and start + nbytes <= len(blob)
            and isinstance(shape, list)
            and len(shape) <= 16
            and all(type(d) is int and d >= 0 for d in shape)
            and (strides is None or (isinstance(strides, list) and len(strides) == len(shape) and all(type(s) is int and s >= 0 for s in strides)))
            and type(storage_offset) is int
            and storage_offset >= 0
        )
    except (TypeError, ValueError, KeyError):
        valid = False
    if not valid:
        raise ProtocolError("unreadable message: a malformed tensor")
    itemsize = dtype.itemsize
    if strides is not None:
        # A view: every element it reads must lie inside its bytes.
        last = storage_offset + sum((d - 1) * s for d, s in zip(shape, strides))
        if math.prod(shape) == 0 or nbytes % itemsize or (last + 1) * itemsize > nbytes:
            raise ProtocolError("unreadable message: a view that reads outside its bytes")
        raw = bytearray(blob[start : start + nbytes])
        return torch.frombuffer(raw, dtype=dtype).as_strided(shape, strides, storage_offset)
    if math.prod(shape) * itemsize != nbytes:
        raise ProtocolError("unreadable message: a tensor whose size does not match its bytes")
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype)
    raw = bytearray(blob[start : start + nbytes])  # a copy the tensor owns
    return torch.frombuffer(raw, dtype=dtype).reshape(shape)


def send(fd: int, obj, layouts: bool = False) -> None:
    data = encode(obj, layouts) if layouts else encode(obj)
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout()
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise Timeout()
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise Closed()
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None):
    (length,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if length > MAX_MESSAGE:
        raise ProtocolError(f"message of {length} bytes is over the {MAX_MESSAGE}-byte cap")
    return decode(_read_exact(fd, length, deadline))
