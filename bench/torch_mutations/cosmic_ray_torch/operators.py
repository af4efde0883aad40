"""The mutation operators: mistakes of PyTorch code, on cosmic-ray's parso trees.

Each operator finds the nodes it can change (``mutation_positions``, one
position per way of changing a node) and returns the changed node
(``mutate``). They all work the same way here: ``_changes(node)`` lists the
new source text of ``node`` (without the white space before it), one text
per mutation, and the node is replaced by a leaf holding that text, so
that only the node's own text changes and the rest of the file keeps its
layout (comments and line breaks included).

Calls are recognised by the name just before their parentheses:
``x.softmax(-1)`` is a method call on ``x`` (its input is ``x``);
``torch.softmax(x, -1)`` and ``F.softmax(x, dim=-1)`` are calls of a
namespace's function (``torch``, ``F``, ``nn``, ...; the input is the first
argument); ``self.proj(x)`` calls a submodule (the input is ``x``).
"""

import parso
import parso.python.tree as tree
from cosmic_ray.operators.operator import Example, Operator

# Where an expression stands alone, needing no parentheses: a statement's right side, a returned value, an argument.
STANDALONE = {"expr_stmt", "return_stmt", "arglist", "argument", "trailer", "testlist_star_expr", "testlist"}
NAMESPACES = {"torch", "F", "nn", "functional", "torch.nn", "torch.nn.functional", "nn.functional"}
# Calls whose positional integer literals are dimensions.
DIM_CALLS = {
    "transpose",
    "swapaxes",
    "unsqueeze",
    "squeeze",
    "softmax",
    "log_softmax",
    "sum",
    "mean",
    "cat",
    "stack",
    "cumsum",
    "argmax",
    "argmin",
    "max",
    "min",
    "flip",
    "size",
    "var",
    "std",
    "norm",
    "split",
    "chunk",
}
DIM_KEYWORDS = {"dim", "dim0", "dim1", "axis"}
# A dimension becomes its neighbour: the last and the one before it, the first and the second.
DIM_SWAP = {-1: -2, -2: -1, -3: -2, 0: 1, 1: 0, 2: 1, 3: 2}
MASK_VALUES = ("0.0", "-1e9", 'float("inf")')
ACTIVATIONS = {"ReLU", "GELU", "Tanh", "SiLU", "Sigmoid"}
ACTIVATION_FUNCTIONS = {"relu", "gelu", "tanh", "silu", "sigmoid"}


# --- reading parso trees ---------------------------------------------------------


def _code(node) -> str:
    return node.get_code(include_prefix=False)


def _codes(nodes) -> str:
    """The text of consecutive sibling nodes, without the white space before the first."""
    text = "".join(n.get_code() for n in nodes)
    return text[len(nodes[0].get_first_leaf().prefix) :] if nodes else ""


def _is_op(node, value: str) -> bool:
    return isinstance(node, tree.Operator) and node.value == value


def _is_call(trailer) -> bool:
    return trailer.type == "trailer" and _is_op(trailer.children[0], "(")


def _int_literal(node) -> int | None:
    """The value of ``3`` or ``-1``; None for anything else."""
    if isinstance(node, tree.Number) and node.parent.type != "factor":
        text = node.value
    elif node.type == "factor" and _is_op(node.children[0], "-") and isinstance(node.children[1], tree.Number):
        text = "-" + node.children[1].value
    else:
        return None
    try:
        return int(text, 0)
    except ValueError:  # 0.5, 1e9
        return None


def _arguments(trailer) -> list:
    """The argument nodes of a call's parentheses, in order (keyword arguments are ``argument`` nodes)."""
    if len(trailer.children) == 2:
        return []
    inner = trailer.children[1]
    if inner.type == "arglist":
        return [c for c in inner.children if not _is_op(c, ",")]
    return [inner]


def _keyword(arg) -> str | None:
    if arg.type == "argument" and len(arg.children) == 3 and _is_op(arg.children[1], "="):
        return arg.children[0].value
    return None


def _positional(trailer) -> list:
    return [a for a in _arguments(trailer) if _keyword(a) is None and not (a.type == "argument" and a.children[0].type == "operator")]


class Call:
    """A call found in an ``atom_expr``: ``atom.children[index]`` is its parentheses."""

    def __init__(self, atom, index: int):
        self.atom, self.index, self.trailer = atom, index, atom.children[index]
        before = atom.children[index - 1]
        if index == 1:  # f(...)
            self.name, self.receiver = (before.value if isinstance(before, tree.Name) else None), None
        elif before.type == "trailer" and _is_op(before.children[0], "."):  # something.f(...)
            self.name, self.receiver = before.children[1].value, atom.children[: index - 1]
        else:  # f(...)(...), x[0](...)
            self.name, self.receiver = None, None
        receiver = _codes(self.receiver) if self.receiver else ""
        only_names = self.receiver is not None and all(isinstance(n, tree.Name) or (n.type == "trailer" and _is_op(n.children[0], ".")) for n in self.receiver)
        self.function = index == 1 or (only_names and receiver in NAMESPACES)  # torch.f(x), F.f(x), f(x)
        self.submodule = receiver == "self"  # self.f(x)
        self.method = self.receiver is not None and not self.function and not self.submodule  # x.f()

    @property
    def positional(self) -> list:
        return _positional(self.trailer)

    def keyword(self, name: str):
        for arg in _arguments(self.trailer):
            if _keyword(arg) == name:
                return arg.children[2]
        return None

    def input(self) -> str | None:
        """The text of the tensor the call works on: the receiver of a method, else the first argument."""
        if self.method:
            return _codes(self.receiver)
        pos = self.positional
        return _code(pos[0]) if pos else None

    def argument(self, method_position: int, keyword: str):
        """An argument given by position (counted after the tensor: a function's first argument is the tensor) or keyword."""
        pos = self.positional
        where = method_position if self.method else method_position + 1
        if where < len(pos):
            return pos[where]
        return self.keyword(keyword)

    def replace_whole(self, text: str) -> str:
        """The ``atom_expr``'s text with the call, from its receiver or namespace to its parentheses, replaced by
        ``text`` (an expression; put in parentheses where it would not bind as the call did)."""
        rest = "".join(n.get_code() for n in self.atom.children[self.index + 1 :])
        if not _atomic(text) and (rest or self.atom.parent.type not in STANDALONE):
            text = f"({text})"
        return text + rest

    def replace_method(self, text: str) -> str:
        """The ``atom_expr``'s text with a method call's ``.name(...)`` replaced by ``text`` (``""``, ``".T"``...)."""
        assert self.method
        head = _codes(self.atom.children[: self.index - 1])
        rest = "".join(n.get_code() for n in self.atom.children[self.index + 1 :])
        return head + text + rest


def _atomic(text: str) -> bool:
    """Whether a trailer may follow ``text`` as it is (a name, a call, a subscript, brackets)."""
    children = [c for c in parso.parse(text).children if c.type != "endmarker"]
    return len(children) == 1 and children[0].type in ("name", "atom_expr", "atom")


def calls(node) -> list[Call]:
    if node.type != "atom_expr":
        return []
    return [Call(node, i) for i, c in enumerate(node.children) if i >= 1 and _is_call(c)]


def _enclosing_call(arg):
    """The ``Call`` that ``arg`` (an argument node, or a keyword argument's value) is an argument of, and the argument node."""
    holder = arg
    if arg.parent.type == "argument" and _keyword(arg.parent) is not None and arg.parent.children[2] is arg:
        holder = arg.parent
    parent = holder.parent
    if parent.type == "arglist":
        parent = parent.parent
    if parent.type != "trailer" or not _is_call(parent) or parent.parent.type != "atom_expr":
        return None, holder
    atom = parent.parent
    return Call(atom, atom.children.index(parent)), holder


def _wrap_call(text: str, method: str) -> str:
    return f"{text}.{method}()" if _atomic(text) else f"({text}).{method}()"


# --- the operators -------------------------------------------------------------------


class TorchOperator(Operator):
    """An operator that lists, for a node, the node's new texts."""

    def _changes(self, node) -> list[str]:
        raise NotImplementedError

    def mutation_positions(self, node):
        if node.parent is None:  # the module, or a node this walk has put in already
            return
        for _ in self._changes(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        text = self._changes(node)[index]
        return tree.Name(text, node.start_pos, node.get_first_leaf().prefix)


class SwapDim(TorchOperator):
    """A dimension becomes its neighbour (-1 <-> -2, 0 <-> 1): ``dim=``, or a literal dimension of softmax, sum,
    transpose, unsqueeze, cat..."""

    def _changes(self, node):
        value = _int_literal(node)
        if value is None or value not in DIM_SWAP:
            return []
        call, holder = _enclosing_call(node)
        if call is None:
            return []
        keyword = _keyword(holder)
        if keyword in DIM_KEYWORDS or (keyword is None and holder is node and call.name in DIM_CALLS):
            return [str(DIM_SWAP[value])]
        return []

    @classmethod
    def examples(cls):
        return (
            Example("w = F.softmax(x, dim=-1)", "w = F.softmax(x, dim=-2)"),
            Example("y = k.transpose(-2, -1)", "y = k.transpose(-1, -1)"),
            Example("y = k.transpose(-2, -1)", "y = k.transpose(-2, -2)", occurrence=1),
            Example("y = torch.cat(xs, 1)", "y = torch.cat(xs, 0)"),
            Example("y = x.unsqueeze(-2)", "y = x.unsqueeze(-1)"),
            Example("y = t.sum(dim=1, keepdim=True)", "y = t.sum(dim=0, keepdim=True)"),
        )


class SwapTriangle(TorchOperator):
    """``tril`` <-> ``triu`` where either is called: the lower triangle becomes the upper one."""

    def _changes(self, node):
        if not isinstance(node, tree.Name) or node.value not in ("tril", "triu"):
            return []
        parent = node.parent
        if parent.type == "trailer" and _is_op(parent.children[0], "."):
            after = parent.get_next_sibling()
        elif parent.type == "atom_expr" and parent.children[0] is node:
            after = parent.children[1]
        else:
            return []
        if after is None or not _is_call(after):
            return []
        return ["triu" if node.value == "tril" else "tril"]

    @classmethod
    def examples(cls):
        return (
            Example("m = torch.tril(torch.ones(T, T))", "m = torch.triu(torch.ones(T, T))"),
            Example("m = x.triu()", "m = x.tril()"),
        )


class _CallOperator(TorchOperator):
    """An operator on calls: ``_call_changes(call)`` gives the new texts of the call's ``atom_expr``."""

    def _changes(self, node):
        return [text for call in calls(node) for text in self._call_changes(call)]

    def _call_changes(self, call: Call) -> list[str]:
        raise NotImplementedError


def _removed(call: Call) -> list[str]:
    """The call replaced by its input: ``x.f(...)`` -> ``x``, ``F.f(x, ...)`` -> ``x``."""
    if call.method:
        return [call.replace_method("")]
    text = call.input()
    return [] if text is None else [call.replace_whole(text)]


class RemoveSoftmax(_CallOperator):
    """No softmax: ``softmax(x)`` -> ``x`` (the scores are used as weights)."""

    def _call_changes(self, call):
        return _removed(call) if call.name in ("softmax", "log_softmax") else []

    @classmethod
    def examples(cls):
        return (
            Example("w = F.softmax(wei, dim=-1)", "w = wei"),
            Example("w = torch.softmax(a + b, dim=-1) @ v", "w = (a + b) @ v"),
            Example("w = wei.softmax(-1)", "w = wei"),
        )


class RemoveTranspose(_CallOperator):
    """No transpose: ``k.transpose(-2, -1)`` -> ``k``; ``x.mT`` -> ``x``."""

    def _changes(self, node):
        found = super()._changes(node)
        if node.type == "atom_expr":
            for i, t in enumerate(node.children):
                if i and t.type == "trailer" and _is_op(t.children[0], ".") and t.children[1].value in ("mT", "T"):
                    after = node.children[i + 1] if i + 1 < len(node.children) else None
                    if after is None or not _is_call(after):
                        found.append(_codes(node.children[:i]) + "".join(n.get_code() for n in node.children[i + 1 :]))
        return found

    def _call_changes(self, call):
        return _removed(call) if call.name in ("transpose", "swapaxes") else []

    @classmethod
    def examples(cls):
        return (
            Example("s = q @ k.transpose(-2, -1)", "s = q @ k"),
            Example("s = q @ torch.transpose(k, -2, -1)", "s = q @ k"),
            Example("s = q @ k.mT", "s = q @ k"),
        )


class TransposeToT(_CallOperator):
    """``k.transpose(-2, -1)`` -> ``k.T``, the two-dimensional transpose, which reverses every dimension of a batch."""

    def _call_changes(self, call):
        if call.name not in ("transpose", "swapaxes"):
            return []
        if call.method:
            return [call.replace_method(".T")]
        text = call.input()
        return [] if text is None else [call.replace_whole(f"{text}.T" if _atomic(text) else f"({text}).T")]

    @classmethod
    def examples(cls):
        return (
            Example("s = q @ k.transpose(-2, -1)", "s = q @ k.T"),
            Example("s = q @ torch.transpose(k, -2, -1)", "s = q @ k.T"),
        )


class RemoveMaskedFill(_CallOperator):
    """No mask: ``x.masked_fill(m, v)`` -> ``x``."""

    def _call_changes(self, call):
        return _removed(call) if call.name in ("masked_fill", "masked_fill_") else []

    @classmethod
    def examples(cls):
        return (
            Example('w = wei.masked_fill(tril == 0, float("-inf"))', "w = wei"),
            Example("w = torch.masked_fill(wei, m, -1e9)", "w = wei"),
        )


class MaskedFillInPlace(_CallOperator):
    """``masked_fill`` -> ``masked_fill_``: the mask is written into the caller's tensor."""

    def _call_changes(self, call):
        if call.name != "masked_fill" or not call.method:
            return []
        return [call.replace_method(_codes(call.atom.children[call.index - 1 : call.index + 1]).replace("masked_fill", "masked_fill_", 1))]

    @classmethod
    def examples(cls):
        return (Example("w = s.masked_fill(m, v)", "w = s.masked_fill_(m, v)"),)


class ChangeMaskValue(TorchOperator):
    """What ``masked_fill`` writes: -inf -> 0.0, -1e9, +inf (whichever differ from it)."""

    def _changes(self, node):
        call, holder = _enclosing_call(node)
        if call is None or call.name not in ("masked_fill", "masked_fill_") or call.argument(1, "value") is not node:
            return []
        now = _code(node).replace("'", '"').replace(" ", "")
        return [v for v in MASK_VALUES if v.replace(" ", "") != now]

    @classmethod
    def examples(cls):
        return (
            Example('w = s.masked_fill(m, float("-inf"))', "w = s.masked_fill(m, 0.0)"),
            Example('w = s.masked_fill(m, float("-inf"))', "w = s.masked_fill(m, -1e9)", occurrence=1),
            Example('w = s.masked_fill(m, float("-inf"))', 'w = s.masked_fill(m, float("inf"))', occurrence=2),
            Example("w = torch.masked_fill(s, m, value=-1e9)", "w = torch.masked_fill(s, m, value=0.0)"),
        )


class InvertMask(TorchOperator):
    """The mask of ``masked_fill`` negated: ``m`` -> ``~(m)`` (the past is filled, the future kept), ``~m`` -> ``m``."""

    def _changes(self, node):
        call, holder = _enclosing_call(node)
        if call is None or call.name not in ("masked_fill", "masked_fill_") or call.argument(0, "mask") is not node:
            return []
        if node.type == "factor" and _is_op(node.children[0], "~"):
            return [_codes(node.children[1:])]
        return [f"~{_code(node)}" if _atomic(_code(node)) else f"~({_code(node)})"]

    @classmethod
    def examples(cls):
        return (
            Example("w = s.masked_fill(tril == 0, v)", "w = s.masked_fill(~(tril == 0), v)"),
            Example("w = s.masked_fill(~tril, v)", "w = s.masked_fill(tril, v)"),
        )


class RemoveDropout(_CallOperator):
    """No dropout: ``self.dropout(x)`` -> ``x``, ``F.dropout(x, p)`` -> ``x``, ``nn.Dropout(p)`` -> ``nn.Identity()``."""

    def _call_changes(self, call):
        if call.submodule and "dropout" in (call.name or "").lower() and len(call.positional) == 1:
            return _removed(call)
        if call.function and call.name == "dropout":
            return _removed(call)
        if call.name == "Dropout" and call.receiver:
            return [call.replace_whole(_codes(call.receiver) + ".Identity()")]
        return []

    @classmethod
    def examples(cls):
        return (
            Example("y = self.dropout(self.proj(x))", "y = self.proj(x)"),
            Example("y = F.dropout(w, 0.1, self.training)", "y = w"),
            Example("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Identity()"),
        )


class OmitDropoutArgument(TorchOperator):
    """The dropout rate not passed on: ``Head(a, b, c, dropout)`` -> ``Head(a, b, c)`` (the callee's default rate)."""

    def _changes(self, node):
        if not (node.type == "trailer" and _is_call(node)):
            return []
        args = _arguments(node)
        found = []
        for i, arg in enumerate(args):
            value = arg.children[2] if _keyword(arg) is not None else arg
            if isinstance(value, tree.Name) and value.value == "dropout":
                found.append("(" + ", ".join(_code(a) for j, a in enumerate(args) if j != i) + ")")
        return found

    @classmethod
    def examples(cls):
        return (
            Example("h = Head(n_embd, hs, block_size, dropout)", "h = Head(n_embd, hs, block_size)"),
            Example("d = nn.Dropout(p=dropout)", "d = nn.Dropout()"),
        )


class SkipSubmodule(_CallOperator):
    """A submodule skipped: ``self.proj(x)`` -> ``x`` (a projection, a layer norm, a head...; dropout is RemoveDropout's)."""

    def _call_changes(self, call):
        if not call.submodule or "dropout" in (call.name or "").lower():
            return []
        if len(_arguments(call.trailer)) != 1 or len(call.positional) != 1:
            return []
        return _removed(call)

    @classmethod
    def examples(cls):
        return (
            Example("y = self.dropout(self.proj(out))", "y = self.dropout(out)"),
            Example("x = x + self.sa(self.ln1(x))", "x = x + self.ln1(x)"),
            Example("x = x + self.sa(self.ln1(x))", "x = x + self.sa(x)", occurrence=1),
        )


class RemoveActivation(_CallOperator):
    """No non-linearity: ``nn.ReLU()`` -> ``nn.Identity()``, ``F.relu(x)`` -> ``x``."""

    def _call_changes(self, call):
        if call.name in ACTIVATIONS and call.receiver:
            return [call.replace_whole(_codes(call.receiver) + ".Identity()")]
        if call.name in ACTIVATION_FUNCTIONS and (call.function or call.method):
            return _removed(call)
        return []

    @classmethod
    def examples(cls):
        return (
            Example("net = nn.Sequential(nn.Linear(a, b), nn.ReLU())", "net = nn.Sequential(nn.Linear(a, b), nn.Identity())"),
            Example("y = F.relu(x)", "y = x"),
        )


class RemoveSlice(TorchOperator):
    """A crop left out: ``idx[:, -self.block_size :]`` -> ``idx``, ``self.tril[:T, :T]`` -> ``self.tril`` (a subscript
    with a bounded slice; plain indexing such as ``x[:, -1, :]`` is left alone)."""

    def _changes(self, node):
        if node.type != "atom_expr":
            return []
        found = []
        for i, t in enumerate(node.children):
            if i and t.type == "trailer" and _is_op(t.children[0], "["):
                inner = t.children[1]
                parts = inner.children if inner.type == "subscriptlist" else [inner]
                if any(p.type == "subscript" for p in parts):
                    found.append(_codes(node.children[:i]) + "".join(n.get_code() for n in node.children[i + 1 :]))
        return found

    @classmethod
    def examples(cls):
        return (
            Example("c = idx[:, -self.block_size :]", "c = idx"),
            Example("m = self.tril[:T, :T] == 0", "m = self.tril == 0"),
        )


class DetachResult(TorchOperator):
    """``.detach()`` on what a function returns (each tensor of a returned tuple in turn): no gradient flows back."""

    def _changes(self, node):
        parent = node.parent
        if parent is None or isinstance(node, tree.Keyword) and node.value in ("return", "None"):
            return []
        if _is_op(node, ","):
            return []
        if parent.type == "return_stmt" and node.type not in ("testlist_star_expr", "testlist"):
            return [_wrap_call(_code(node), "detach")]
        if parent.type in ("testlist_star_expr", "testlist") and parent.parent.type == "return_stmt":
            return [_wrap_call(_code(node), "detach")]
        return []

    @classmethod
    def examples(cls):
        return (
            Example("def f(w, v):\n    return w @ v\n", "def f(w, v):\n    return (w @ v).detach()\n"),
            Example("def f(x):\n    return x, None\n", "def f(x):\n    return x.detach(), None\n"),
            Example("def f(x, y):\n    return x, y\n", "def f(x, y):\n    return x, y.detach()\n", occurrence=1),
        )


class ChangeDefault(TorchOperator):
    """A parameter's default changed (``dropout=0.0`` -> ``0.5``, a number -> 0, True <-> False), and a
    flag passed by keyword flipped (``bias=False`` -> ``bias=True``, ``keepdim=True`` -> ``False``)."""

    def _changes(self, node):
        parent = node.parent
        if parent is None:
            return []
        is_default = parent.type == "param" and _is_op(node.get_previous_sibling(), "=")
        is_flag = parent.type == "argument" and _keyword(parent) is not None and parent.children[2] is node
        if isinstance(node, tree.Keyword) and node.value in ("True", "False") and (is_default or is_flag):
            return ["False" if node.value == "True" else "True"]
        if is_default and isinstance(node, tree.Number):
            value = eval(node.value)  # noqa: S307 - a number literal of the code being mutated
            if isinstance(value, float):
                return ["0.5" if value == 0 else "0.0"]
            return ["1" if value == 0 else "0"]
        return []

    @classmethod
    def examples(cls):
        return (
            Example("def f(x, dropout: float = 0.0):\n    pass\n", "def f(x, dropout: float = 0.5):\n    pass\n"),
            Example("lin = nn.Linear(a, b, bias=False)", "lin = nn.Linear(a, b, bias=True)"),
            Example("def f(x, n=3):\n    pass\n", "def f(x, n=0):\n    pass\n"),
        )


class _SwapBinary(TorchOperator):
    before = after = ""

    def _changes(self, node):
        if isinstance(node, tree.Operator) and node.value == self.before and node.parent.type == "term":
            return [self.after]
        return []

    def mutate(self, node, index):
        assert index == 0
        node.value = self.after
        return node


class MatMulToMul(_SwapBinary):
    """``a @ b`` -> ``a * b``: a product of matrices becomes an elementwise one (broadcast where it can)."""

    before, after = "@", "*"

    @classmethod
    def examples(cls):
        return (Example("y = w @ v", "y = w * v"),)


class MulToMatMul(_SwapBinary):
    """``a * b`` -> ``a @ b``: an elementwise product becomes a product of matrices."""

    before, after = "*", "@"

    @classmethod
    def examples(cls):
        return (Example("y = w * v", "y = w @ v"),)


OPERATORS = {
    op.__name__: op
    for op in (
        SwapDim,
        SwapTriangle,
        RemoveSoftmax,
        RemoveTranspose,
        TransposeToT,
        RemoveMaskedFill,
        MaskedFillInPlace,
        ChangeMaskValue,
        InvertMask,
        RemoveDropout,
        OmitDropoutArgument,
        SkipSubmodule,
        RemoveActivation,
        RemoveSlice,
        DetachResult,
        ChangeDefault,
        MatMulToMul,
        MulToMatMul,
    )
}
