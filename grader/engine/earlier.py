"""The grading process's side of the earlier exercises' functions.

While exercise N is graded, the functions of the exercises before it are the
grader's (``standins.asking``): the child asks, on its own pipes, for the
value of ``scale_scores(scores, 4)`` (and in backward for its gradient), and
the grading process answers with the reference, which it holds already. The
child sends what it likes: the key must name a function of an earlier
exercise, every argument must be a plain tensor or number of a modest size,
and the answer's size is bounded before anything is computed (on the "meta"
device, which computes shapes only), so no question can make the grading
process allocate more than a check would.
"""

import math

import torch

from grader.child import standins
from grader.exercises import BY_ID

MAX_NUMEL = 1 << 20  # elements of any tensor asked about or answered
MAX_DIMS = 8
MAX_NUMBER = 4096  # a number argument (a size such as T, head_size)


class Refused(Exception):
    """A question the grader does not answer (its message goes back to the child)."""


def _plain_tensor(value) -> torch.Tensor:
    if type(value) is not torch.Tensor or value.layout != torch.strided or value.device.type != "cpu":
        raise Refused("arguments must be plain tensors or numbers")
    if value.dim() > MAX_DIMS or value.numel() > MAX_NUMEL:
        raise Refused(f"a tensor of shape {tuple(value.shape)} is more than the grader's stand-in takes")
    return value


def _rebuild(template, tensors: list):
    """The call's arguments from the child's template (``standins._split``)."""

    def value(item):
        if isinstance(item, dict) and set(item) == {"$arg"} and type(item["$arg"]) is int and 0 <= item["$arg"] < len(tensors):
            return tensors[item["$arg"]]
        if item is None or type(item) is bool:
            return item
        if type(item) in (int, float) and math.isfinite(item) and abs(item) <= MAX_NUMBER:
            return item
        raise Refused("arguments must be plain tensors or numbers of a modest size")

    if not (isinstance(template, dict) and isinstance(template.get("args"), list) and isinstance(template.get("kwargs"), dict)):
        raise Refused("the question is malformed")
    return [value(a) for a in template["args"]], {str(k): value(v) for k, v in template["kwargs"].items()}


def _bounded(function, args, kwargs) -> None:
    """Refuse, before computing it, an answer bigger than ``MAX_NUMEL``: the
    same call on the meta device gives its shape without its numbers."""

    def meta(x):
        return torch.empty_like(x, device="meta") if isinstance(x, torch.Tensor) else x

    try:
        with torch.no_grad():
            shape = function(*map(meta, args), **{k: meta(v) for k, v in kwargs.items()}).shape
    except Exception:  # noqa: BLE001 - not every computation runs on meta: the inputs' size bounds it then
        if sum(x.numel() for x in [*args, *kwargs.values()] if isinstance(x, torch.Tensor)) > MAX_NUMEL // 16:
            raise Refused("the answer's size cannot be told in advance, and the inputs are large") from None
        return
    if math.prod(shape) > MAX_NUMEL:
        raise Refused(f"an answer of shape {tuple(shape)} is more than the grader's stand-in gives")


def answer(references: dict, exercise_id: str, question: dict) -> dict:
    """The reply to a child's question (``{"value": ...}``, ``{"grads": [...]}``
    or ``{"error": "..."}``) while ``exercise_id`` is graded."""
    try:
        key = question.get("earlier")
        if not (isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)):
            raise Refused("the question is malformed")
        earlier_id, name = key
        if earlier_id not in [e.id for e in standins.earlier(exercise_id)] or name not in standins.functions_of(BY_ID[earlier_id]):
            raise Refused(f"{earlier_id}.{name} is no function of an exercise before {exercise_id}")
        raw = question.get("tensors")
        if not isinstance(raw, list):
            raise Refused("the question is malformed")
        tensors = [_plain_tensor(t) for t in raw]
        args, kwargs = _rebuild(question.get("template"), tensors)
        function = getattr(references[earlier_id].namespace, name)
        _bounded(function, args, kwargs)
        grad = question.get("grad")
        if grad is None:
            with torch.no_grad():
                out = function(*args, **kwargs)
            return {"value": out.detach()}
        grad = _plain_tensor(grad)
        leaves = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
        args, kwargs = _rebuild(question.get("template"), leaves)
        with torch.enable_grad():
            out = function(*args, **kwargs)
            wanted = [leaf for leaf in leaves if leaf.requires_grad]
            found = torch.autograd.grad(out, wanted, grad, allow_unused=True) if wanted and out.requires_grad else [None] * len(wanted)
        by_leaf = dict(zip(map(id, wanted), found))
        return {"grads": [by_leaf.get(id(leaf)) for leaf in leaves]}
    except Refused as exc:
        return {"error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - what the reference raises for these inputs, as the student's own would
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
