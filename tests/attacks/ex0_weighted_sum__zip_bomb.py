"""Attack: answer with a decompression bomb. torch.save writes an uncompressed
zip archive; this child answers with 16 MB of zeros and re-packs the archive
with DEFLATE, which shrinks it about a thousandfold. Had the grader read
torch.save archives (it did once), a bomb the size of the 8 MB message cap
would unpack to some 8 GB in the grading process.

The grading process reads only its own JSON and raw-bytes messages
(grader/child/protocol.py), never an archive: 0 points, "could not be read safely".
"""
import io
import struct
import sys
import zipfile

import torch

protocol = sys.modules["grader.child.protocol"]
_real_encode = protocol.encode


def _bomb_encode(obj) -> bytes:
    if not (isinstance(obj, dict) and ("value" in obj or "batch" in obj)):  # a batch of answers too
        return _real_encode(obj)  # the "ready" message stays honest
    plain = io.BytesIO()
    torch.save(dict(obj, value=torch.zeros(16 * 1024**2, dtype=torch.uint8)), plain)
    packed = io.BytesIO()
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(packed, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))
    data = packed.getvalue()
    return struct.pack(">Q", len(data)) + data


protocol.encode = _bomb_encode


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.zeros(1)
