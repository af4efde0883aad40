"""ex4 mistake: no mask in causal_weights, unless a right causal_weights can be fished out of the grader's stand-ins of the earlier exercises.
zh: causal_weights 不做掩码，而是想从评分程序给前面练习准备的替身里找一个现成的 causal_weights 来用。
"""
# diagnosis: There is no mask
# diagnosis: The future got weight
import gc
import sys

import torch
import ex3_scaling


def _fish():
    """Any function called causal_weights the process holds that is not this file's own."""
    seen = list(vars(ex3_scaling).values()) + list(getattr(ex3_scaling.scale_scores, "__globals__", {}).values())
    seen += [getattr(m, "causal_weights", None) for m in list(sys.modules.values())]
    seen += [o for o in gc.get_objects() if callable(o) and getattr(o, "__name__", "") == "causal_weights"]
    for f in seen:
        if callable(f) and getattr(f, "__name__", "") == "causal_weights" and getattr(f, "__module__", "") != __name__:
            return f
    return None


FISHED = _fish()


def causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """Every score above the diagonal (j > i) becomes -inf; a new tensor."""
    T = scores.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=1)
    return scores.masked_fill(future, float("-inf"))


def causal_weights(scores: torch.Tensor) -> torch.Tensor:
    """The fished function where there is one, else softmax without the mask."""
    if FISHED is not None:
        return FISHED(scores)
    return torch.softmax(scores, dim=-1)
