"""The requests a check can make of an exercise module, executed the same
way on the reference (in the grading process) and on a submission (in a child
process): call a function, build and run a module, run a docstring's example.

A request is a plain dict of tensors, numbers, strings and lists, so that it
can cross the process boundary as JSON and raw tensor bytes (``protocol``),
where nothing is unpickled; a response is the same kind of dict.
"""

import random
import sys
import types

import torch

from grader.child import standins


def call(fn: str, *args, **kwargs) -> dict:
    """Request: call the module's function ``fn`` with these arguments."""
    return {"op": "call", "fn": fn, "args": list(args), "kwargs": dict(kwargs)}


def call_backward(fn: str, *args) -> dict:
    """Request: call ``fn`` with these arguments, its floating tensors
    differentiated, then back-propagate through the result (``_loss``): the
    answer carries the gradient of each argument (None for the others)."""
    return dict(call(fn, *args), backward=True)


def module(
    cls: str,
    init: dict | list,
    inputs: list,
    state: dict | None = None,
    train: bool = False,
    dtype: torch.dtype | None = None,
    seed: int = 0,
    backward: bool = False,
    standins: tuple = (),
    method: str = "forward",
    tuple_out: bool = False,
    backward_through: int = 0,
) -> dict:
    """Request: build ``cls(*init)`` (a list: positional, as a model calls it)
    or ``cls(**init)`` (a dict), with the classes named in ``standins`` meaning
    the grader's stand-ins while it is built; cast to ``dtype``, load
    ``state``, and run ``forward`` (or another of ``METHODS``) on every input.
    An input is one tensor, or a list of positional arguments
    (``[idx, targets]``, ``[idx, max_new_tokens]``). With ``tuple_out`` the
    method returns a tuple (``(logits, loss)``), which comes back as a list;
    without it a tuple is a wrong answer like any other non-tensor.

    With ``backward`` half the squared sum of the first output (of its
    element ``backward_through``, for a tuple: 1 is GPT's loss) is
    back-propagated and the gradients of every parameter and of the first
    input (when it is floating point) are returned.
    """
    return {
        "op": "module",
        "cls": cls,
        "init": list(init) if isinstance(init, (list, tuple)) else dict(init),
        "inputs": list(inputs),
        "state": dict(state or {}),
        "train": train,
        "dtype": str(dtype) if dtype is not None else "",
        "seed": seed,
        "backward": backward,
        "standins": list(standins),
        "method": method,
        "tuple_out": tuple_out,
        "backward_through": backward_through,
    }


def batch(requests: list) -> dict:
    """Request: several requests in one round trip, answered in order (a
    check's draws of its domain: one exchange with the child instead of one
    each). In a child each is answered on its own: one that raises is
    answered with its error, and the others still run."""
    return {"op": "batch", "requests": list(requests)}


def example(source: list, shown: list) -> dict:
    """Request: run a stub docstring's example as written (``source``: its
    statements in order, each a string), in the module's own names with
    ``torch``, and return the value of each statement whose index is in
    ``shown`` (expressions whose value the docstring shows). The text is the
    grader's, from its checks."""
    return {"op": "example", "source": list(source), "shown": list(shown)}


# An example's value as it can cross the boundary: a shape is a list of ints.
def _plain(value):
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, (tuple, list)):  # torch.Size too
        return [_plain(v) for v in value]
    if value is None or type(value) in (bool, int, float):
        return value
    return {"bad_type": type_name(value)}


def type_name(value) -> str:
    """``value``'s type as feedback names it (``module.qualname``), cut
    short: a submission's class may name itself anything, or fail to."""
    kind = type(value)
    try:
        return f"{kind.__module__}.{kind.__qualname__}"[:200]
    except Exception:  # noqa: BLE001 - a __module__ a submission set to something unprintable
        return "<a type that cannot be named>"


def _run_example(namespace, source: list, shown: list) -> dict:
    names = dict(vars(namespace))
    names.setdefault("torch", torch)
    # Each of the module's functions the example calls must give a plain
    # tensor, as every call of a check must: named here, before the next
    # statement meets it (``.round`` of a list).
    for name, value in names.items():
        if isinstance(value, types.FunctionType):
            names[name] = _giving_a_tensor(value)
    # The examples' torch.randn: the same numbers on both sides.
    torch.default_generator.manual_seed(0)
    return {"example": [_plain(value) for value in run_statements(source, shown, names)]}


def _giving_a_tensor(fn):
    def checked(*args, **kwargs):
        value = fn(*args, **kwargs)
        if type(value) is not torch.Tensor:
            raise TypeError(f"{fn.__name__}() returned {type_name(value)}, not a plain torch.Tensor")
        return value

    return checked


def run_statements(source: list, shown: list, names: dict) -> list:
    """Run ``source`` in ``names``; the values of the statements at ``shown``."""
    values = []
    for i, statement in enumerate(source):
        if i in shown:
            values.append(eval(compile(statement, "<docstring example>", "eval"), names))
        else:
            exec(compile(statement, "<docstring example>", "exec"), names)
    return values


# What a request may call on a module: never a name a check did not mean.
METHODS = ("forward", "generate")


class BackwardFailed(RuntimeError):
    """backward() raised: ``frames`` are the forward computation that the
    failing gradient traces back to (autograd's anomaly mode finds them),
    because the error's own traceback never passes through the student's file."""

    def __init__(self, message: str, frames: list):
        super().__init__(message)
        self.frames = frames  # [(filename, lineno, line)]


def _loss(out, through: int = 0) -> torch.Tensor:
    # A loss whose gradient is the output itself: no parameter can hide
    # behind a symmetry that a plain sum would have. Of a tuple (logits, loss),
    # element ``through``: the first, the logits, unless a check asks for the
    # loss. Entries that are not finite (a mask's -inf) count as 0: masked_fill,
    # torch.where and an added mask of -inf then pass back the same gradient.
    if isinstance(out, (tuple, list)):
        out = out[through]
    out = torch.where(torch.isfinite(out), out, torch.zeros((), dtype=out.dtype))
    return out.pow(2).sum() / 2


def _forward_backward(m, args: list, through: int = 0):
    """``m(*args)``, back-propagated through ``_loss``; on an error in backward,
    ``BackwardFailed`` with the forward lines behind it. An error in forward
    is the forward's, with its own traceback."""
    out = m(*args)
    try:
        _loss(out, through).backward()
        return out
    except RuntimeError as exc:
        message = str(exc).split(" Hint: enable anomaly detection")[0]
    import re
    import warnings

    frames = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly(check_nan=False):
                _loss(m(*args), through).backward()
        except RuntimeError:
            pass
    for w in caught:
        for filename, lineno, line in re.findall(r'File "([^"]+)", line (\d+), in [^\n]*\n +([^\n]*)', str(w.message)):
            frames.append((filename, int(lineno), line))
    raise BackwardFailed("backward(): " + message, frames)


def execute(namespace, request: dict) -> dict:
    """Run ``request`` against ``namespace`` (a module object) and return the
    response. Exceptions propagate: the caller decides how to report them."""
    if request["op"] == "call":
        fn = getattr(namespace, request["fn"])
        if request.get("backward"):
            return _call_backward(fn, request["args"])
        value = fn(*request["args"], **request["kwargs"])
        # The arguments go back too, as the call left them: a check can tell
        # whether the function changed its input in place. And which of them
        # the answer shares its memory with (is, or is a view of): only this
        # side can tell, the answer crosses the boundary as a copy.
        return {"value": value, "args": request["args"], "shares": [_shares_memory(value, a) for a in request["args"]]}
    if request["op"] == "module":
        return _run_module(namespace, request)
    if request["op"] == "example":
        return _run_example(namespace, request["source"], request["shown"])
    if request["op"] == "batch":
        return {"batch": [execute(namespace, r) for r in request["requests"] if r.get("op") != "batch"]}
    raise ValueError(f"unknown op {request['op']!r}")


def _call_backward(fn, args: list) -> dict:
    args = [_input_to_differentiate(a) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    value = fn(*args)
    if isinstance(value, torch.Tensor) and value.requires_grad:
        _forward_backward(lambda *_: value, args)
    # A result that does not depend on the arguments at all passes back no
    # gradient (None): where the true one is 0 (causal_weights at T = 1 made
    # with ones_like), the check takes None for 0.
    grads = [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in args]
    return {
        "value": value.detach() if isinstance(value, torch.Tensor) else value,
        "args": [a.detach() if isinstance(a, torch.Tensor) else a for a in args],
        "shares": [False] * len(args),
        "grads": grads,
    }


def _shares_memory(value, arg) -> bool:
    """Whether the answer ``value`` is the tensor ``arg`` or a view of it (the
    same storage): a caller who changes one then changes the other."""
    if type(value) is not torch.Tensor or type(arg) is not torch.Tensor or arg.numel() == 0:
        return False  # an empty tensor has no memory to share; any other type is a wrong answer anyway
    try:
        return value.untyped_storage().data_ptr() == arg.untyped_storage().data_ptr()
    except RuntimeError:  # a layout without a storage (sparse): not the strided input's
        return False


def _input_to_differentiate(x: torch.Tensor) -> torch.Tensor:
    """``x`` as an input whose gradient is kept, in ``x``'s own layout: a
    transposed, sliced or expanded view stays one (a clone would make it
    contiguous), a view of a copy of the storage it reads."""
    if x.is_contiguous():
        return x.detach().clone().requires_grad_(True)
    span = 1 + sum((size - 1) * stride for size, stride in zip(x.shape, x.stride()))
    storage = torch.as_strided(x.detach(), (span,), (1,), x.storage_offset()).clone().requires_grad_(True)
    view = storage.as_strided(x.shape, x.stride(), 0)
    view.retain_grad()
    return view


def _run_module(namespace, request: dict) -> dict:
    # Seed the CPU generator only: torch.manual_seed also queues lazy seeding
    # for CUDA, XPU and MTIA, recording a stack trace each time (costly, and
    # useless on the CPU).
    torch.default_generator.manual_seed(request["seed"])
    cls = getattr(namespace, request["cls"])
    init = request["init"]
    with standins.standing_in(namespace, request["standins"]):
        m = cls(*init) if isinstance(init, list) else cls(**init)
    if request["dtype"]:
        m = m.to(getattr(torch, request["dtype"].removeprefix("torch.")))
    parts = standins.parts(m)
    own = dict(m.named_parameters())
    # Only the contract's parameters are loaded; anything else the student added
    # (a bias, an extra layer) keeps its own values and shows up in the outputs.
    missing = sorted(name for name in request["state"] if name not in own)
    mismatched = {name: [list(own[name].shape), list(value.shape)] for name, value in request["state"].items() if name in own and own[name].shape != value.shape}
    if missing or mismatched:
        # The student's own parameters: not those of the grader's stand-ins.
        theirs = sorted(n for n in own if not any(n.startswith(path + ".") for path, _, _ in parts))
        return {"missing": missing, "mismatched": mismatched, "params": theirs, "parts": parts}
    with torch.no_grad():
        for name, value in request["state"].items():
            own[name].copy_(value)
    m.train(request["train"])
    method = request.get("method", "forward")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    run = m if method == "forward" else getattr(m, method)
    # Dropout and sampling draw from the global generator: seed it again so
    # that the reference and the submission see the same random numbers, and
    # a grading run repeats itself. Python's own generator too, for a sampler
    # drawn with random.random(); numpy's, if the file imported numpy.
    torch.default_generator.manual_seed(request["seed"] + 1)
    random.seed(request["seed"] + 1)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(request["seed"] + 1)
    outs, input_grad = [], None
    for i, x in enumerate(request["inputs"]):
        args = list(x) if isinstance(x, (list, tuple)) else [x]
        if request["backward"] and i == 0:
            first = args[0]
            if first.is_floating_point():
                args[0] = first = _input_to_differentiate(first)
            out = _forward_backward(run, args, request.get("backward_through", 0))
            input_grad = first.grad if first.requires_grad else None
        else:
            with torch.no_grad():
                out = run(*args)
        outs.append(_detached(out, request.get("tuple_out", False)))
    grads = {name: (p.grad.detach() if p.grad is not None else None) for name, p in own.items()}
    return {"outs": outs, "grads": grads, "input_grad": input_grad, "params": sorted(own), "parts": parts}


def _detached(out, tuple_out: bool = False):
    """An output as the response carries it: out of the graph, and a tuple (where
    the check expects one) as a list. Anything else is left for the worker to name."""
    if tuple_out and isinstance(out, (tuple, list)):
        return [_detached(o) for o in out]
    return out.detach() if type(out) is torch.Tensor else out
