"""How requests and responses cross the process boundary.

A message is an 8-byte length followed by a ``torch.save`` payload. Whatever a
child sends is read with ``torch.load(weights_only=True)``, which builds only
tensors and plain containers and never runs code; the result is then checked
for exact types before any check looks at it.
"""
import io
import os
import select
import struct
import time
import zipfile

import torch

MAX_MESSAGE = 8 * 1024 * 1024  # a response bigger than this is refused unread (real ones are a few KB)
_HEADER = struct.Struct(">Q")


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed message."""


class Timeout(Exception):
    """No complete message arrived before the deadline."""


class Closed(Exception):
    """The other side closed its end (usually: the child died)."""


def encode(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    data = buf.getvalue()
    return _HEADER.pack(len(data)) + data


def _check_archive(data: bytes) -> None:
    """Refuse a payload that torch.load would blow up in memory.

    torch.save writes a zip archive whose members are stored uncompressed, but
    torch.load also inflates compressed members, without a limit: a child
    could send a few hundred kilobytes that unpack to gigabytes here (a zip
    bomb). So: a zip archive, stored members only, no more than the message
    cap in all. (Found by tests/attacks/ex0_weighted_sum__zip_bomb.py.)"""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except Exception:  # noqa: BLE001 - BadZipFile, or a header too broken to read
        raise ProtocolError("unreadable message: not a torch.save archive") from None
    if any(m.compress_type != zipfile.ZIP_STORED for m in members):
        raise ProtocolError("unreadable message: a compressed archive")
    if sum(m.file_size for m in members) > MAX_MESSAGE:
        raise ProtocolError(f"unreadable message: unpacks to over {MAX_MESSAGE} bytes")


def decode(data: bytes):
    """Read one payload without running any code from it."""
    _check_archive(data)
    try:
        return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as exc:  # noqa: BLE001 - any failure means "not a safe message"
        raise ProtocolError(f"unreadable message: {type(exc).__name__}") from None


def send(fd: int, obj) -> None:
    data = encode(obj)
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
