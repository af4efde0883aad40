"""The inputs each function and module of the stubs allows, written once.

A stub's docstring promises a domain: "``...`` stands for any number of batch
dims, none included", "Shapes: any", "T may be 1", "float64 in, float64 out",
dropout in train mode. Each promise is an axis of an entry here, and the
checks draw their inputs from these entries instead of from sizes picked for
each check, so that what they try spans what the stub allows:

- batch dims: none, a batch of 1, one and two of them (a 0-d tensor where any
  shape is promised);
- sizes: 1, the edges (T = block_size; T past block_size for generate) and,
  for a size the code takes a root of (head_size), squares and non-squares;
- dtypes: float32 and float64 (token ids are int64);
- memory layouts: contiguous, transposed, sliced with a step from an offset,
  and expanded (a broadcast view, stride 0): code that assumes a contiguous
  tensor (``.view``, ``as_strided``, ``data_ptr``) meets one it cannot handle;
- for modules, train and eval mode, and backward through train mode with
  dropout > 0 (``MODES``).

``draws(name, seed, n)`` gives ``n`` draws that together cover every value of
every axis: each axis's values in an order the seed shuffles, the draws
walking through them side by side (a covering, not a search). Every random
number comes from ``checking``'s generator for the check's seed: the
teacher's secret decides every draw, ``--inputs-seed N`` repeats a run, and a
student's own run draws the same inputs each time, answered from the
release's recording.

Why not Hypothesis (with hypothesis-torch): it searches by running a test
function many times and shrinking what fails, with its own random source and
example database. A check runs once, in a grading process that asks a child
for every answer, and must decide its inputs from the grading's secret alone;
what it needs is a handful of draws guaranteed to include every layout,
dtype and edge size, which a covering gives in twenty lines. And the
students' ``grade`` environment stays lean: Hypothesis is not in it.

``tests/unit/test_domain.py`` reads every stub's docstring and fails when a
promise it makes has no entry here that covers it (``PROMISES``).
"""

from dataclasses import dataclass, field

import torch

from grader.authoring import checking
from grader.authoring.checking import _generator
from grader.text import Text, t

LAYOUTS = ("contiguous", "transposed", "strided", "expanded")
DTYPES = (torch.float32, torch.float64)
MODES = ("eval", "train")  # train: dropout > 0, and backward through it

_LAYOUT_TEXT = {
    "contiguous": ("连续存放", "contiguous"),
    "transposed": ("转置的视图", "a transposed view"),
    "strided": ("隔一个取一个的切片视图", "a view sliced with a step"),
    "expanded": ("expand 出来的广播视图", "an expanded (broadcast) view"),
}


@dataclass(frozen=True)
class Domain:
    """What one function or module accepts. ``args``: the shape of each
    tensor argument, in letters: ``.`` the batch dims, any other letter a
    size named in ``sizes``; ``"long:V"``-style entries are token ids below
    the size V. ``batch``: the batch dims to cover; ``sizes``: each size's
    values to cover. ``promises``: what the stub says, in the words
    ``tests/unit/test_domain.py`` looks for, that this entry covers."""

    args: tuple[str, ...]
    sizes: dict = field(default_factory=dict)
    batch: tuple = ((),)
    dtypes: tuple = DTYPES
    layouts: tuple = LAYOUTS
    modes: tuple = ()
    promises: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()  # sizes passed after the tensors (scale_scores' head_size)

    def axes(self) -> dict:
        axes = {"batch": self.batch, "dtype": self.dtypes, "layout": self.layouts}
        axes.update({name: tuple(values) for name, values in self.sizes.items()})
        if self.modes:
            axes["mode"] = self.modes
        return axes


# Batch dims where a stub says "..." (any number, none included).
ANY_BATCH = ((), (1,), (3,), (2, 3))
# The sizes of head_size a check covers: 1, squares and not (code that takes
# an integer root, isqrt, is right only on squares), larger than n_embd too.
HEAD_SIZES = (1, 3, 4, 12)

DOMAINS: dict[str, Domain] = {
    "weighted_sum": Domain(
        ("...T", "...TC"),
        {"T": (1, 3, 5, 8), "C": (1, 2, 4)},
        ANY_BATCH,
        promises=("any number of batch dims", "T may be 1", "float64 in, float64 out"),
    ),
    "averaging_matrix": Domain((), {"T": (1, 2, 5, 9)}, dtypes=(torch.float32,), layouts=("contiguous",), promises=("T may be 1",), extra=("T",)),
    "average_past": Domain(("BTC",), {"B": (1, 2, 3), "T": (1, 2, 5, 9), "C": (1, 3, 4)}, promises=("T may be any size", "float64 in, float64 out")),
    "attention_scores": Domain(
        ("BTH", "BTH"),
        {"B": (1, 2, 3), "T": (1, 2, 4, 7), "H": (1, 2, 3, 8)},
        promises=("B, T and hs may be any sizes", "float64 in, float64 out"),
    ),
    # "Shapes: any": a 0-d tensor is a shape too.
    "scale_scores": Domain(
        ("...",),
        {"head_size": HEAD_SIZES},
        ((), (5,), (2, 4), (2, 3, 4, 4)),
        extra=("head_size",),
        promises=("any; the output has the input's shape", "float64 in, float64 out", "leaving the input unchanged"),
    ),
    "causal_mask": Domain(
        ("...TT",),
        {"T": (1, 2, 4, 11)},
        ANY_BATCH,
        promises=("any number of batch dims", "T may be any length, 1 or longer than 8", "float64 in, float64 out", "return a new tensor"),
    ),
    "causal_weights": Domain(("...TT",), {"T": (1, 3, 5, 12)}, ANY_BATCH, promises=("Shapes, batch dims and dtype as for causal_mask",)),
    # Modules: x (B, T, n_embd), T up to block_size (block_size itself included).
    "Head": Domain(
        ("BTC",),
        {"B": (1, 2, 3), "T": (1, 3, "block_size")},
        modes=MODES,
        promises=("One head must handle inputs of any T up to block_size", "In eval mode", "dropout rate on the weights", "The gradient flows back to the input x", "float64 x gives a float64 output"),
    ),
    "MultiHeadAttention": Domain(("BTC",), {"B": (1, 2), "T": (1, 3, "block_size")}, modes=MODES, promises=("In eval mode there is no dropout",)),
    "FeedForward": Domain(("BTC",), {"B": (1, 2), "T": (1, 3, 5)}, modes=MODES, promises=("In eval mode there is no dropout",)),
    "Block": Domain(("BTC",), {"B": (1, 2), "T": (1, 3, "block_size")}, modes=MODES, promises=("float64 x gives a float64 output",)),
    "GPT": Domain(
        ("long:BT",),
        {"B": (1, 2, 3), "T": (1, 2, "block_size")},
        dtypes=(torch.int64,),
        modes=MODES,
        promises=("T may be any length from 1 to block_size",),
    ),
    "GPT.generate": Domain(
        ("long:BT",),
        {"B": (1, 2), "T": (1, "block_size", "past block_size")},
        dtypes=(torch.int64,),
        promises=("T may exceed block_size",),
    ),
}


@dataclass
class Draw:
    """One draw: the tensor arguments (in their layout), and the values of every axis."""

    args: list
    sizes: dict
    batch: tuple
    dtype: torch.dtype
    layout: str
    mode: str | None = None

    @property
    def train(self) -> bool:
        return self.mode == "train"

    def label(self) -> Text:
        """The draw as feedback names it: shapes, dtype, layout, mode."""
        if "_label" not in self.__dict__:
            self.__dict__["_label"] = self._label()
        return self.__dict__["_label"]

    def _label(self) -> Text:
        shapes = ", ".join(str(tuple(a.shape)) if isinstance(a, torch.Tensor) else repr(a) for a in self.args)
        zh_layout, en_layout = _LAYOUT_TEXT[layout_of(self.args[0]) if isinstance(self.args[0], torch.Tensor) else self.layout]
        zh = f"形状 {shapes}，{str(self.dtype).removeprefix('torch.')}，{zh_layout}"
        en = f"shape {shapes}, {str(self.dtype).removeprefix('torch.')}, {en_layout}"
        if self.mode:
            zh += "，train 模式（dropout > 0，再做 backward）" if self.train else "，eval 模式"
            en += ", train mode (dropout > 0, then backward)" if self.train else ", eval mode"
        return t(zh, en)


def cover(axes: dict, seed: int, n: int) -> list[dict]:
    """``n`` combinations of the axes' values in which every value of every
    axis appears at least once when ``n`` is at least the longest axis: each
    axis walked in an order the seed shuffles, from an offset it draws."""
    g = _generator(seed)
    walks = {}
    for name, values in axes.items():
        order = torch.randperm(len(values), generator=g).tolist()
        walks[name] = [values[i] for i in order]
    return [{name: walk[i % len(walk)] for name, walk in walks.items()} for i in range(n)]


def layout_of(x: torch.Tensor) -> str:
    """Which of ``LAYOUTS`` the tensor ``x`` is in."""
    if x.is_contiguous():
        return "contiguous"
    if 0 in x.stride():
        return "expanded"
    if x.dim() >= 2 and x.stride(-2) == 1:
        return "transposed"
    return "strided"


def in_layout(x: torch.Tensor, layout: str, g: torch.Generator) -> torch.Tensor:
    """``x``'s values (an expanded view: ``x``'s first slice along a dim,
    repeated) in ``layout``. A layout that a tensor of this shape cannot
    take (a transposed 1-d tensor) falls back to a strided slice."""
    if layout == "transposed" and x.dim() >= 2 and x.shape[-1] > 1 and x.shape[-2] > 1:
        return x.mT.contiguous().mT
    if layout == "expanded":
        dims = [d for d in range(x.dim()) if x.shape[d] > 1]
        if dims:
            return x.narrow(dims[0], 0, 1).expand(x.shape)
    if layout in ("strided", "transposed", "expanded") and x.dim() >= 1:
        # Every other element of a wider tensor, from an offset of one: the
        # elements between are junk that code reading the storage picks up.
        wide = torch.randn((*x.shape[:-1], 2 * x.shape[-1] + 1), generator=g, dtype=torch.float64).mul(1e3).to(x.dtype)
        wide[..., 1::2] = x
        return wide[..., 1::2]
    return x


def _size(value, sizes: dict, block_size: int | None):
    if value in ("block_size", "past block_size"):
        assert block_size is not None, "a module's draws need its block_size"
        return block_size if value == "block_size" else block_size + 3
    return value


def draws(name: str, seed: int, n: int | None = None, block_size: int | None = None, vocab_size: int | None = None, n_embd: int | None = None, scale: float = 1.0, **fixed) -> list[Draw]:
    """``n`` draws from the domain of ``name`` (every value of every axis
    among them when ``n`` is at least the longest axis; by default exactly
    that), with the axes in ``fixed`` held at one value (``T=1``,
    ``layout="contiguous"``, ``dtype=torch.float64``, ``mode="train"``).
    Modules need the sizes their instance fixes: ``n_embd`` (C), and
    ``block_size``; GPT's ids are below ``vocab_size``. ``scale``: the
    floating inputs' spread."""
    key = (name, seed, n, block_size, vocab_size, n_embd, scale, tuple(sorted((k, repr(v)) for k, v in fixed.items())), checking._inputs_seed)
    if key not in _drawn:
        _drawn[key] = _draws(name, seed, n, block_size, vocab_size, n_embd, scale, fixed)
    return list(_drawn[key])


# draws' answers, by everything that decides them: a batch grades every
# student on the same draws, made once (checks never change their inputs).
_drawn: dict = {}


def _draws(name, seed, n, block_size, vocab_size, n_embd, scale, fixed) -> list[Draw]:
    """The draws, covering every layout for real: a layout a draw's shape
    cannot take (a transposed (1, 1), an expanded 0-d tensor) falls back to
    another, so the covering is walked again, in another order, until every
    layout asked for is among the draws' tensors. A check's verdict on a
    mistake that shows in one layout then never depends on the secret."""
    domain = DOMAINS[name]
    axes = {k: (fixed[k],) if k in fixed else values for k, values in domain.axes().items()}
    if n is None:
        n = max(len(v) for v in axes.values())
    wanted = set(axes["layout"]) if domain.args and n >= len(axes["layout"]) else set()
    for attempt in range(50):
        out = _drawn_once(domain, seed if attempt == 0 else seed * 1_000 + attempt, n, axes, block_size, vocab_size, n_embd, scale)
        if not wanted or wanted <= {layout_of(d.args[0]) for d in out}:
            break
    return out


def _drawn_once(domain: Domain, seed: int, n: int, axes: dict, block_size, vocab_size, n_embd, scale) -> list[Draw]:
    g = _generator(100_000 + seed)  # the values: another stream than the covering's
    out = []
    for combo in cover(axes, seed, n):
        sizes = {k: _size(combo[k], combo, block_size) for k in domain.sizes}
        if n_embd is not None:
            sizes["C"] = n_embd
        batch = combo["batch"]
        args = []
        for spec in domain.args:
            kind, _, letters = spec.rpartition(":")
            shape: list[int] = []
            for letter in letters.replace("...", "."):
                shape.extend(batch if letter == "." else [sizes[letter]])
            if kind == "long":
                x = torch.randint(vocab_size, tuple(shape), generator=g)
            else:
                x = (scale * torch.randn(tuple(shape), generator=g, dtype=torch.float64)).to(combo["dtype"])
            args.append(in_layout(x, combo["layout"], g))
        args += [sizes[name] for name in domain.extra]
        out.append(Draw(args, sizes, tuple(batch), combo["dtype"], combo["layout"], combo.get("mode")))
    return out
