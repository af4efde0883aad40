"""What a check can say when it fails, and the helpers check authors use.

A failed check explains itself in Chinese and English: what was tested, what
came out, what was expected, and a hint at the usual mistake behind it.
"""
import math
from dataclasses import dataclass

import torch

from grader.text import Text, t

__all__ = ["t", "Text", "CheckFailed", "SubmissionFault", "expect", "expect_close", "fmt", "randn"]


class CheckFailed(AssertionError):
    """A check saw a wrong answer."""

    def __init__(self, what: Text, got: str, want: str, hint: Text | None = None, diagnosed: bool = False):
        super().__init__(what.en)
        self.what, self.got, self.want, self.hint = what, got, want, hint
        self.diagnosed = diagnosed  # the hint names the mistake the answer matches, not a usual cause


@dataclass
class Fault:
    """Why the submission gave no answer at all (it raised, crashed, timed out...)."""

    message: Text
    detail: str = ""  # e.g. the lines of the student's file the exception passed through
    not_implemented: bool = False


class SubmissionFault(Exception):
    def __init__(self, fault: Fault):
        super().__init__(fault.message.en)
        self.fault = fault


def fmt(x, decimals: int = 4, max_rows: int = 4, max_cols: int = 5) -> str:
    """A tensor as a student can read it: one line per row, rounded, and for
    large tensors only the top-left corner of the first matrix."""
    if not isinstance(x, torch.Tensor):
        return repr(x)
    x = x.detach().cpu()
    if x.dim() == 0:
        return _num(x.item(), decimals)
    if x.dim() == 1:
        cut = x[:max_cols * 2]
        more = ", ..." if x.numel() > cut.numel() else ""
        return "[" + ", ".join(_num(v, decimals) for v in cut.tolist()) + more + "]"
    prefix = ""
    if x.dim() > 2 or x.shape[0] > max_rows or x.shape[1] > max_cols:
        index = ", ".join(["0"] * (x.dim() - 2))
        parts = [f"shape {tuple(x.shape)}, {x.dtype}"]
        if x.dim() > 2:
            parts.append(f"showing [{index}]")
        if x.shape[-2] > max_rows or x.shape[-1] > max_cols:
            parts.append("top-left")
        prefix = ", ".join(parts) + ":\n"
    while x.dim() > 2:
        x = x[0]
    rows = []
    for row in x[:max_rows].tolist():
        cells = [_num(v, decimals) for v in row[:max_cols]]
        rows.append("[" + ", ".join(cells) + (", ..." if len(row) > max_cols else "") + "]")
    if x.shape[0] > max_rows:
        rows.append("...")
    return prefix + "\n".join(rows)


def _num(v, decimals: int) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        return f"{v:.{decimals}f}"
    return str(v)


def expect(condition: bool, what: Text, got: str, want: str, hint: Text | None = None) -> None:
    if not condition:
        raise CheckFailed(what, got, want, hint)


def _first_difference(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float) -> str:
    bad = ~torch.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    index = tuple(int(i) for i in bad.nonzero()[0])
    return t(
        f"第一个不同的位置 {list(index)}：得到 {got[index].item():.4g}，期望 {want[index].item():.4g}",
        f"first difference at {list(index)}: got {got[index].item():.4g}, expected {want[index].item():.4g}",
    ).__str__()


def expect_close(
    got: torch.Tensor,
    want: torch.Tensor,
    what: Text,
    hint: Text | None = None,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    diagnoses=(),
    check_dtype: bool = True,
) -> None:
    """Fail unless ``got`` has ``want``'s shape, dtype and values.

    ``diagnoses`` is a list of (tensor, Text): what a usual mistake would have
    produced, with the hint for it. When ``got`` matches one, that hint wins.
    """
    if tuple(got.shape) != tuple(want.shape):
        raise CheckFailed(what, f"shape {tuple(got.shape)}", f"shape {tuple(want.shape)}", hint)
    if check_dtype and got.dtype != want.dtype:
        if want.is_floating_point() and not got.is_floating_point():
            dtype_hint = t(
                "结果是整数类型，装不下 1/3 这样的小数：从浮点张量开始算（例如 torch.ones 默认是 float32）。",
                "The result is an integer tensor, which cannot hold fractions such as 1/3: start from a float tensor (torch.ones is float32 by default).",
            )
        else:
            dtype_hint = t(
                "不要把结果转成固定的类型：输入是什么精度，输出就用什么精度。",
                "Do not cast to a fixed dtype: keep the precision of the input.",
            )
        raise CheckFailed(what, f"dtype {got.dtype}", f"dtype {want.dtype}", dtype_hint)
    if torch.allclose(got.to(want.dtype), want, atol=atol, rtol=rtol, equal_nan=True):
        return
    diagnosed = False
    for alt, alt_hint in diagnoses:
        if alt.shape == got.shape and torch.allclose(got.to(alt.dtype), alt, atol=atol, rtol=rtol, equal_nan=True):
            hint, diagnosed = alt_hint, True
            break
    got_s, want_s = fmt(got), fmt(want)
    if got.dim() > 2 or got.numel() > 20:
        got_s += "\n" + _first_difference(got.to(want.dtype), want, atol, rtol)
    raise CheckFailed(what, got_s, want_s, hint, diagnosed)


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Reproducible inputs that do not touch the global random state."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def random_state(shapes: dict, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    """Parameters for a module, by contract name: ``{"key.weight": (4, 12)}``.

    Weights named ``ln*.weight`` are drawn around 1 and biases around 0, so
    that a layer norm used in the wrong place changes the result."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for name, shape in shapes.items():
        x = torch.randn(*shape, generator=g, dtype=dtype)
        if name.split(".")[0].startswith("ln") and name.endswith("weight"):
            x = 1 + 0.5 * x
        elif name.endswith("bias"):
            x = 0.5 * x
        else:
            x = x * shape[-1] ** -0.5  # like nn.Linear's scale, so activations stay moderate
        state[name] = x
    return state


def expect_grads(got, want, what: Text, hint: Text | None = None) -> None:
    """Every parameter the reference trains gets a finite, matching gradient."""
    for name, w in want.grads.items():
        g = got.grads.get(name)
        expect(
            g is not None,
            what,
            t(f"{name} 没有梯度", f"{name} has no gradient").inline(),
            t(f"{name} 有梯度", f"{name} has a gradient").inline(),
            hint or t(
                "这个参数没有参与前向计算，或者计算图被 detach/no_grad/.data 切断了。",
                "This parameter is not used in forward, or the graph is cut by detach / no_grad / .data.",
            ),
        )
        expect_close(g, w, what=t(what.zh + f"（{name} 的梯度）", what.en + f" (gradient of {name})"), hint=hint, atol=1e-4, rtol=1e-3)
