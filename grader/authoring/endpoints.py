"""What a check talks to: the submission and the reference, side by side.
The engine implements both (``engine/submission_endpoint``, in a child
process; ``engine/reference_endpoint``, in the grading process); both take
the same requests (``ops``), so a check reads ``got = sub.f(x)`` and
``want = ref.f(x)``. This module is what a check sees of them: the calls,
and a module run's answer (``ModuleRun``).
"""

from dataclasses import dataclass

import torch

from grader.authoring.checking import Fault, SubmissionFault, describe_part, malformed
from grader.child import ops
from grader.text import t


@dataclass
class ModuleRun:
    outs: list
    grads: dict
    input_grad: torch.Tensor | None
    params: list
    parts: list  # the grader's stand-ins inside: [path, contract class, arguments it was built with]


class Endpoint:
    """Requests as a check writes them; ``request`` sends one to its side."""

    def call(self, fn: str, *args, **kwargs):
        return self.request(ops.call(fn, *args, **kwargs))["value"]

    def call_keeping_args(self, fn: str, *args, **kwargs):
        """Like ``call``, but also return the arguments as the call left them."""
        response = self.request(ops.call(fn, *args, **kwargs))
        return response["value"], response["args"]

    def call_watching_args(self, fn: str, *args, **kwargs) -> tuple:
        """Like ``call_keeping_args``, and also, for each argument, whether the
        answer is that very tensor or a view of it (shares its memory)."""
        response = self.request(ops.call(fn, *args, **kwargs))
        return response["value"], response["args"], response["shares"]

    def module(self, cls: str, **kwargs) -> ModuleRun:
        """Build ``cls`` and run it (see ``ops.module``). An output is a tensor,
        or with ``tuple_out=True`` a list of tensors and Nones."""
        return module_run(cls, kwargs, self.request(ops.module(cls, **kwargs)))

    def modules(self, cls: str, runs: list) -> list:
        """``module(cls, **kwargs)`` for each ``kwargs`` of ``runs``, in one
        round trip (``ops.batch``): a ModuleRun each, or the SubmissionFault
        that run met (``domain_checks.unpack`` raises it where a check looks at it)."""
        answers = self.request(ops.batch([ops.module(cls, **kwargs) for kwargs in runs]))["batch"]
        return [_or_fault(lambda: module_run(cls, kwargs, answer), answer) for kwargs, answer in zip(runs, answers)]

    def calls(self, fn: str, arg_lists: list, backward: bool = False) -> list:
        """``fn(*args)`` for each ``args`` of ``arg_lists``, in one round trip
        (``ops.batch``): the values, or with ``backward`` (value, gradients)
        pairs as ``call_backward`` gives them; a SubmissionFault for a call
        that raised (``domain_checks.unpack``)."""
        make = ops.call_backward if backward else ops.call
        answers = self.request(ops.batch([make(fn, *args) for args in arg_lists]))["batch"]
        if not backward:
            return [_or_fault(lambda: answer["value"], answer) for answer in answers]
        return [_or_fault(lambda: (answer["value"], answer.get("grads", [None] * len(args))), answer) for answer, args in zip(answers, arg_lists)]

    def call_backward(self, fn: str, *args) -> tuple:
        """``fn(*args)`` back-propagated (``ops.call_backward``): (the value,
        the gradient of each argument or None)."""
        response = self.request(ops.call_backward(fn, *args))
        return response["value"], response.get("grads", [None] * len(args))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)

    def request(self, request: dict) -> dict:
        raise NotImplementedError


def _or_fault(make, answer):
    """``make()``, or the fault a batch's answer already is."""
    if isinstance(answer, SubmissionFault):
        return answer
    try:
        return make()
    except SubmissionFault as fault:
        return fault


def module_run(cls: str, kwargs: dict, response: dict) -> ModuleRun:
    """A module request's answer (``ops.module``) as a check reads it."""
    if "missing" in response:
        raise SubmissionFault(_contract_fault(cls, response))
    if "outs" not in response or (not kwargs.get("tuple_out") and any(isinstance(o, list) for o in response["outs"])):
        raise SubmissionFault(malformed())
    return ModuleRun(response["outs"], response["grads"], response["input_grad"], response["params"], response["parts"])


def _contract_fault(cls: str, response: dict) -> Fault:
    lines = []
    # A missing "<part>.standin.*" parameter is a part the student's code did
    # not build through the contract's class (so no stand-in was swapped in).
    unbuilt = sorted({name.split(".standin.")[0] for name in response["missing"] if ".standin." in name})
    for name in unbuilt:
        lines.append(f"- {name}: 不是调用约定的类建的 / not built by calling the contract's class (the grader swaps in its stand-in when your code calls it)")
    for name in response["missing"]:
        if ".standin." not in name:
            lines.append(f"- {name}: 找不到 / not found")
    for name, (have, want) in response["mismatched"].items():
        lines.append(f"- {name}: shape {tuple(have)}, 期望 / expected {tuple(want)}")
    names = [str(p)[:80] for p in response["params"][:20]] + (["..."] if len(response["params"]) > 20 else [])
    lines = lines[:20]
    lines.append(f"你的参数 / your parameters: {', '.join(names) or '(none)'}")
    built = response.get("parts") or []
    if built:
        lines.append("用评分程序的替身建的部件 / parts built with the grader's stand-ins:")
        lines += [f"  {path}: {describe_part(contract, args)}" for path, contract, args in built[:12]]
        if len(built) > 12:
            lines.append(f"  ... ({len(built) - 12} more)")
    return Fault(
        t(
            f"{cls} 的参数与约定不符：属性名、形状，以及 nn.Sequential 里各层的位置（net.0 是第一层）都是约定的一部分",
            f"{cls}'s parameters do not match the contract: attribute names, shapes and the position of each layer in nn.Sequential (net.0 is the first) are all part of it",
        ),
        "\n".join(lines),
    )
