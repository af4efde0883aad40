"""Attack: return a dict shaped like a protocol message, holding the right
tensor and the bytes of a pickle that would run a shell command if anyone
unpickled them. Not a tensor: 0 points, and nothing is run (the payload would
create a marker file the test looks for)."""
import torch

PAYLOAD = b"cposix\nsystem\n(S'touch __ATTACK_DIR__/pwned-by-dict'\ntR."


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    out = (weights.unsqueeze(-2) @ values).squeeze(-2)  # (..., C)
    return {"value": out, "id": 1, "pickle": PAYLOAD}
