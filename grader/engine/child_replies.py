"""What a child says back, read defensively: a child runs submission code,
which can send anything. Its replies are checked for shape and for plain
tensors before any check sees them, and the errors it reports become the
faults the student reads."""

import torch

from grader.authoring.checking import Fault, SubmissionFault, malformed
from grader.text import NOT_IMPLEMENTED, t


def _error_info(info: dict) -> tuple[str, str, list]:
    """The child describes its own errors, and a submission can replace the
    describer: take only short text and well-formed lines from it (found by
    tests/attacks/ex0_weighted_sum__huge_exception.py). Its control
    characters were made visible as the message was read (``protocol``)."""
    kind, message = str(info.get("type", "?"))[:200], str(info.get("message", ""))[:2000]
    lines = info.get("lines")
    lines = [pair for pair in lines if isinstance(pair, (list, tuple)) and len(pair) == 2] if isinstance(lines, list) else []
    lines = [(n if type(n) is int else 0, str(line)[:300]) for n, line in lines[-5:]]
    return kind, message, lines


def describe_error(error, file) -> Fault:
    """The fault for an error the child reports (anything but a dict reads
    as an empty one); ``file`` (a ``submission.ExerciseFile``) names its
    lines as the student finds them (in a notebook: by cell)."""
    kind, message, lines = _error_info(error if isinstance(error, dict) else {})
    where = "\n".join(f"  {file.where(n).en}: {line.strip()}" for n, line in lines)
    if message.startswith("backward(): "):
        return Fault(
            t(
                f"计算梯度（backward）时出错 {kind}；下面是它追溯到的前向计算",
                f"computing the gradients (backward) raised {kind}; below, the forward computation it traces back to",
            ),
            (f"  {kind}: {message}\n" + where).rstrip(),
        )
    if kind == "NotImplementedError":
        return Fault(NOT_IMPLEMENTED, where, not_implemented=True)
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        n, line = (lines or [(0, "")])[0]
        place = file.where(n)
        return Fault(
            t(f"语法错误：{place.zh}", f"syntax error in {place.en}"),
            f"  {line.strip()}\n  {kind}: {message}",
        )
    return Fault(
        t(f"你的代码抛出了 {kind}", f"your code raised {kind}"),
        (f"  {kind}: {message}\n" + where).rstrip(),
    )


def _bad_type(name: str) -> SubmissionFault:
    return SubmissionFault(
        Fault(
            t(f"返回的不是普通张量，而是 {name}", f"returned {name}, not a plain torch.Tensor"),
        )
    )


def _tensor(value, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, dict) and "bad_type" in value:
        raise _bad_type(str(value["bad_type"])[:200])
    if type(value) is torch.nn.Parameter:
        value = value.detach()
    if type(value) is not torch.Tensor:
        raise _bad_type(type(value).__name__)
    if value.layout != torch.strided or value.is_quantized or value.device.type != "cpu":
        raise _bad_type(f"a {value.layout} tensor on {value.device}")
    return value


def validated(response: dict, expected: int | None = None) -> dict:
    """Check the shape of a child's response before any check sees it.
    ``expected``: the number of answers a batch request must get."""
    if expected is not None:
        answers = response.get("batch")
        if not isinstance(answers, list) or len(answers) != expected or not all(isinstance(a, dict) for a in answers):
            raise SubmissionFault(malformed())
        return {"batch": [a if set(a) == {"error"} else validated(a) for a in answers]}
    if "value" in response:
        value = response["value"]
        args, shares = response.get("args"), response.get("shares")
        if not isinstance(args, list) or not isinstance(shares, list) or len(shares) != len(args) or any(type(s) is not bool for s in shares):
            raise SubmissionFault(malformed())
        args = [a if type(a) in (int, float, bool) or a is None else _tensor(a) for a in args]
        # Every exercise function returns a tensor: a number is a wrong answer, not a check's problem.
        if type(value) in (int, float, bool):
            raise _bad_type(type(value).__name__)
        out = {"value": _tensor(value), "args": args, "shares": shares}
        if "grads" in response:  # ops.call_backward: a gradient (or None) per argument
            grads = response["grads"]
            if not isinstance(grads, list) or len(grads) != len(args):
                raise SubmissionFault(malformed())
            out["grads"] = [_tensor(g, allow_none=True) for g in grads]
        return out
    if "example" in response:
        return {"example": _example_value(response["example"])}
    if "missing" in response:
        if not isinstance(response.get("missing"), list) or not isinstance(response.get("mismatched"), dict):
            raise SubmissionFault(malformed())
        return dict(response, parts=_parts(response.get("parts")), params=[str(p) for p in response.get("params", [])][:1000])
    if "outs" in response:
        outs = response.get("outs")
        grads = response.get("grads")
        if not isinstance(outs, list) or not isinstance(grads, dict):
            raise SubmissionFault(malformed())
        return {
            "outs": [[_tensor(v, allow_none=True) for v in o] if isinstance(o, list) else _tensor(o) for o in outs],
            "grads": {str(k): _tensor(v, allow_none=True) for k, v in grads.items()},
            "input_grad": _tensor(response.get("input_grad"), allow_none=True),
            "params": [str(p) for p in response.get("params", [])][:1000],
            "parts": _parts(response.get("parts")),
        }
    raise SubmissionFault(malformed())


def _example_value(value, depth: int = 0):
    """A docstring example's value: tensors, numbers, None and lists of them."""
    if value is None or type(value) in (int, float, bool):
        return value
    if isinstance(value, list) and depth < 4 and len(value) <= 64:
        return [_example_value(v, depth + 1) for v in value]
    return _tensor(value)


def _plain_value(v):
    """An argument a stand-in was built with, as the feedback shows it."""
    if v is None or type(v) in (int, float, bool):
        return v
    return str(v)[:60]


def _parts(parts) -> list:
    """The stand-ins a child says its module holds, taken apart defensively
    (the child can send anything): [path, contract class, {argument: value}]."""
    if not isinstance(parts, list):
        raise SubmissionFault(malformed())
    out = []
    for part in parts[:1000]:
        if not (isinstance(part, list) and len(part) == 3 and isinstance(part[2], dict)):
            raise SubmissionFault(malformed())
        path, contract, args = part
        out.append([str(path)[:100], str(contract)[:40], {str(k)[:40]: _plain_value(v) for k, v in list(args.items())[:8]}])
    return out
