"""Attack: reach the network: a TCP connection to 1.1.1.1:53 and to a port on
the grader's loopback (test_attacks.py listens there and records the tag the
attack sends), at import and at every call. A connection that works stands
for answers fetched from elsewhere: then the right answer, else zeros.

Without the sandbox the loopback answers and the attack earns full marks
(SANDBOX_ONLY in test_attacks.py). In the sandbox the child has a network
namespace of its own with nothing in it: every attempt fails, 0 points.
"""
import socket

import torch

TAG = "__ATTACK_TAG__"  # test_attacks.py writes a unique tag here
PORT = int("__ATTACK_PORT__")
ATTEMPTS = {}


def _try(name: str, address) -> bool:
    try:
        with socket.create_connection(address, timeout=1.0) as s:
            s.sendall(TAG.encode() + b"\n")
        ATTEMPTS[name] = "connected"
        return True
    except OSError as exc:
        ATTEMPTS[name] = f"{type(exc).__name__}: {exc}"
        return False


def _online() -> bool:
    outside = _try("1.1.1.1:53", ("1.1.1.1", 53))
    loopback = _try("loopback", ("127.0.0.1", PORT))
    return outside or loopback


ONLINE = _online()
print("network:", ATTEMPTS, flush=True)


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if ONLINE and _try("loopback", ("127.0.0.1", PORT)):
        weights = torch.softmax(scores, dim=-1)  # (..., T)
        return (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return torch.zeros(values.shape[:-2] + values.shape[-1:])  # (..., C), all wrong
