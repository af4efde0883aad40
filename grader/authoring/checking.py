"""What a check can say when it fails, and the helpers check authors use.

A failed check explains itself in Chinese and English: what was tested, what
came out, what was expected and what differs. A hint that names a mistake is
shown only when the answer is what that mistake computes, and what no other
mistake the check lists computes (a diagnosis: ``one_diagnosis``). When the
answer is wrong only because another function of the exercise is, the check
says so instead (``caused_by``).
"""

import functools
import hashlib
import math
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from grader.text import Text, count, t

__all__ = [
    "t",
    "Text",
    "CheckFailed",
    "SubmissionFault",
    "expect",
    "expect_close",
    "expect_grads",
    "expect_parts",
    "expect_tokens",
    "expect_draws",
    "caused_by",
    "FALSE_ALARM",
    "fmt",
    "randn",
    "randint",
    "pick",
]


class CheckFailed(AssertionError):
    """A check saw a wrong answer."""

    def __init__(self, what: Text, got: str, want: str, hint: Text | None = None, diagnosed: bool = False, difference: Text | None = None):
        super().__init__(what.en)
        self.what, self.got, self.want, self.hint = what, got, want, hint
        self.diagnosed = diagnosed  # the hint names the mistake the answer matches
        self.difference = difference  # what differs, in general terms
        self.causes_asked = False  # the ``caused_by`` blocks around the check were asked already

    @property
    def diagnosis(self) -> Text | None:
        """The mistake the answer matches, when the check named one: the
        grader's own text, chosen by the check in the grading process (the
        plugin carries it into ``CheckResult.diagnosis``, and from there into
        results.json; the class report counts it from there)."""
        return self.hint if self.diagnosed and self.hint else None


@dataclass
class Fault:
    """Why the submission gave no answer at all (it raised, crashed, timed out...)."""

    message: Text
    detail: str = ""  # e.g. the lines of the student's file the exception passed through
    not_implemented: bool = False
    missing: bool = False  # the exercise's file is not there at all


class SubmissionFault(Exception):
    def __init__(self, fault: Fault):
        super().__init__(fault.message.en)
        self.fault = fault


def malformed() -> Fault:
    """The fault for a reply that is not shaped as the protocol says (a
    child's, read by ``engine/child_replies``; a module run's, by ``endpoints``)."""
    return Fault(t("返回的结果格式不对", "the response is malformed"))


def fmt(x, decimals: int = 4, max_rows: int = 4, max_cols: int = 5) -> str:
    """A tensor as a student can read it: one line per row, rounded, and for
    large tensors only the top-left corner of the first matrix."""
    if not isinstance(x, torch.Tensor):
        return repr(x)
    x = x.detach().cpu()
    if x.dim() == 0:
        return _num(x.item(), decimals)
    if x.dim() == 1:
        cut = x[: max_cols * 2]
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
        if v != 0 and not 1e-3 <= abs(v) < 1e6:
            # torch.finfo(float32).min is 39 digits in fixed notation.
            return f"{v:.{decimals - 1}e}"
        return f"{v:.{decimals}f}"
    return str(v)


def expect(condition: bool, what: Text, got: str, want: str, hint: Text | None = None, diagnosed: bool = False) -> None:
    """A property check. ``hint`` must follow from the failed condition itself
    (what the failure means), not guess at a cause; ``diagnosed=True`` when the
    condition alone identifies the mistake (an input changed in place)."""
    if not condition:
        raise CheckFailed(what, got, want, hint, diagnosed)


# --- a failure that comes from another function ---------------------------------
#
# ex4's causal_weights is usually softmax(causal_mask(scores)), ex7's generate
# asks forward for its logits: when causal_mask or forward is wrong, the check
# of causal_weights or generate fails too, and a diagnosis of it would name a
# mistake it does not make (generate "keeps only the last token" when forward
# has no position embeddings). A check says so instead: ``caused_by``.

_causes: list = []  # the finders of the ``caused_by`` blocks the running check is in, innermost last


@contextmanager
def caused_by(find):
    """Inside this block, a check that fails first asks ``find()`` whether the
    answer is wrong because another function (or method) of the same
    exercise is: ``find`` returns the hint that says so (a ``Text``: which
    function is wrong, fix it first) or None. When it names one, the failure
    shows that hint, no diagnosis, and the check's diagnoses are not even
    computed (``expect_close``, ``expect_draws``); any other ``CheckFailed``
    raised in the block gets it too.

    ``find`` is called only once the answer is wrong, at most once per
    failure. It may ask ``sub`` (the submission answers in every edition:
    ``grader.authoring.upstream`` holds the usual finders) but never ``ref``: the
    student release replays only the reference answers that right answers
    ask for (tests/unit/test_checks_static.py). A submission fault while it asks
    (the other function raises) names no cause."""
    _causes.append(find)
    try:
        yield
    except CheckFailed as failed:
        if not failed.causes_asked:
            failed.causes_asked = True
            cause = _ask(find)
            if cause is not None:
                failed.hint, failed.diagnosed = cause, False
        raise
    finally:
        _causes.pop()


def _ask(find) -> Text | None:
    try:
        return find()
    except SubmissionFault:
        return None


def _cause() -> Text | None:
    """The hint of the innermost ``caused_by`` block around the running check whose finder names a cause."""
    for find in reversed(_causes):
        cause = _ask(find)
        if cause is not None:
            return cause
    return None


def _failed(what: Text, got: str, want: str, cause: Text | None, hint: Text | None, difference: Text) -> CheckFailed:
    """The failure of an answer: the cause when ``caused_by`` named one, else the diagnosis (if any)."""
    failed = CheckFailed(what, got, want, cause or hint, diagnosed=cause is None and hint is not None, difference=difference)
    failed.causes_asked = True
    return failed


def one_diagnosis(matches) -> Text | None:
    """The hint of the mistakes whose predictions the answer matches
    (``matches``: their hints, in the check's order), when they all say the
    same; None when none matches, or when two different hints do: the answer
    is then what two mistakes compute, and naming one of them could name the
    wrong one (the failure says in general terms what differs)."""
    found = list(dict.fromkeys(matches))
    return found[0] if len(found) == 1 else None


def _where(index) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def describe_difference(got: torch.Tensor, want: torch.Tensor, atol: float = 1e-5, rtol: float = 1e-4) -> Text:
    """What differs between ``got`` and ``want``, in general terms: the shape,
    the dtype or where and how the values differ. It never guesses at the
    mistake behind it (that is what diagnoses are for)."""
    if tuple(got.shape) != tuple(want.shape):
        g, w = tuple(got.shape), tuple(want.shape)
        if got.dim() == want.dim() + 1 and 1 in g and tuple(d for i, d in enumerate(g) if i != g.index(1)) == w:
            return t(f"形状多了一个大小为 1 的维度（第 {g.index(1)} 维）", f"the shape has an extra dimension of size 1 (dim {g.index(1)})")
        if got.dim() != want.dim():
            return t(f"维数不同：{got.dim()} 维，期望 {want.dim()} 维", f"a different number of dimensions: {got.dim()}, expected {want.dim()}")
        if got.numel() == want.numel():
            return t("元素个数相同，但排列成了另一种形状", "the same number of entries, arranged in another shape")
        dims = [i for i in range(got.dim()) if g[i] != w[i]]
        return t(f"第 {dims} 维的大小不同", f"the size differs in dim {dims}")
    if got.dtype != want.dtype:
        return t(f"类型是 {got.dtype}，期望 {want.dtype}", f"the dtype is {got.dtype}, expected {want.dtype}")
    shown_got, shown_want = got, want  # integers (token ids) are shown as integers
    if not got.is_floating_point() and not got.is_complex():
        got = got.to(torch.float64)
    want = want.to(got.dtype)
    bad = ~torch.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    n_bad, n = int(bad.sum()), got.numel()
    first: tuple = tuple(int(i) for i in bad.nonzero()[0]) if n_bad else ()
    got_first, want_first = _num(shown_got[first].item(), 4), _num(shown_want[first].item(), 4)
    if n == 1:  # one number (a loss): nothing to count or locate
        return t(f"得到 {got_first}，期望 {want_first}", f"got {got_first}, expected {want_first}")
    lines_zh = [f"{n} 个数中有 {n_bad} 个不对；第一个在 {_where(first)}：得到 {got_first}，期望 {want_first}"]
    lines_en = [f"{n_bad} of {count(n, 'entry', 'entries')} {'differs' if n_bad == 1 else 'differ'}; the first at {_where(first)}: got {got_first}, expected {want_first}"]
    nan, inf = int(torch.isnan(got).sum() - torch.isnan(want).sum()), int(torch.isinf(got).sum() - torch.isinf(want).sum())
    if nan > 0:
        lines_zh.append(f"有 {nan} 个 NaN")
        lines_en.append(f"{count(nan, 'entry', 'entries')} {'is' if nan == 1 else 'are'} NaN")
    if inf > 0:
        lines_zh.append(f"有 {inf} 个无穷大")
        lines_en.append(f"{count(inf, 'entry', 'entries')} {'is' if inf == 1 else 'are'} infinite")
    finite = torch.isfinite(got) & torch.isfinite(want)
    if nan <= 0 and inf <= 0 and bool(finite.all()):
        if bool((got == 0).all()):
            lines_zh.append("每个数都是 0")
            lines_en.append("every entry is 0")
        elif bool((got == got.flatten()[0]).all()):
            lines_zh.append(f"每个数都是 {_num(got.flatten()[0].item(), 4)}")
            lines_en.append(f"every entry is {_num(got.flatten()[0].item(), 4)}")
        elif bool((want != 0).all()):
            ratio = got / want
            if torch.allclose(ratio, ratio.flatten()[0].expand_as(ratio), rtol=1e-3, atol=1e-6):
                k = ratio.flatten()[0].item()
                lines_zh.append(f"每个数都是期望值的 {_num(k, 4)} 倍")
                lines_en.append(f"every entry is {_num(k, 4)} times the expected one")
        if got.dim() >= 2 and got.shape[-1] == got.shape[-2] and torch.allclose(got, want.transpose(-2, -1), atol=atol, rtol=rtol):
            lines_zh.append("它等于期望结果在最后两维上的转置")
            lines_en.append("it equals the expected result transposed in its last two dims")
        if got.dim() >= 2 and n_bad:
            rows = bad.flatten(0, -2).any(-1)
            if bool(rows.any()) and not bool(rows.all()):
                lines_zh.append(f"{int(rows.sum())} 行（共 {rows.numel()} 行）有不对的数")
                lines_en.append(f"{int(rows.sum())} of {count(rows.numel(), 'row')} {'holds' if int(rows.sum()) == 1 else 'hold'} a wrong entry")
    return t("；".join(lines_zh), "; ".join(lines_en))


def expect_close(
    got: torch.Tensor,
    want: torch.Tensor,
    what: Text,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    diagnoses=(),
    check_dtype: bool = True,
) -> None:
    """Fail unless ``got`` has ``want``'s shape, dtype and values.

    ``diagnoses`` is a list of (tensor, Text), or a function that returns
    one: what a usual mistake would have produced, with what to say about it.
    A function is called only when ``got`` is wrong (a GPT run by hand for
    every diagnosis costs more than the check itself: right answers, most of
    a class's, need none); it must not ask ``sub`` or ``ref`` anything, since
    the student release records only the reference answers that right
    answers ask for (tests/unit/test_checks_static.py). A hint is shown only when
    ``got`` matches one (shape, dtype and values) and matches no other with a
    different hint (``one_diagnosis``); otherwise the failure says in general
    terms what differs. Inside a ``caused_by`` block whose finder names
    another function, that is said instead, and no diagnosis is computed."""
    same_shape = tuple(got.shape) == tuple(want.shape)
    if same_shape and (got.dtype == want.dtype or not check_dtype):
        got_as = got.to(want.dtype)
        # A right answer computed the reference's way is often bit for bit the
        # same: torch.equal says so 20 times faster than allclose.
        if torch.equal(got_as, want) or torch.allclose(got_as, want, atol=atol, rtol=rtol, equal_nan=True):
            return
    cause = _cause()
    hint = None
    if cause is None:
        if callable(diagnoses):
            diagnoses = diagnoses()
        hint = one_diagnosis(
            alt_hint
            for alt, alt_hint in diagnoses
            if tuple(alt.shape) == tuple(got.shape)
            and alt.dtype == got.dtype
            and torch.allclose(got, alt, atol=atol, rtol=rtol, equal_nan=True)
            and not (same_shape and alt.dtype == want.dtype and torch.allclose(alt, want, atol=atol, rtol=rtol, equal_nan=True))
        )
    if not same_shape:
        got_s, want_s = f"shape {tuple(got.shape)}", f"shape {tuple(want.shape)}"
    elif check_dtype and got.dtype != want.dtype:
        got_s, want_s = f"dtype {got.dtype}", f"dtype {want.dtype}"
    else:
        got_s, want_s = fmt(got), fmt(want)
    raise _failed(what, got_s, want_s, cause, hint, describe_difference(got, want, atol, rtol))


def expect_tokens(got: torch.Tensor, want: torch.Tensor, what: Text, diagnoses=()) -> None:
    """``expect_close`` for token ids (generated text): a failure shows whole
    rows, where the new tokens are, not the top-left corner."""
    try:
        expect_close(got, want, what, diagnoses=diagnoses)
    except CheckFailed as failed:
        if tuple(got.shape) == tuple(want.shape) and got.dtype == want.dtype and got.dim() == 2:
            failed.got, failed.want = (_rows(x) for x in (got, want))
        raise


def _rows(x: torch.Tensor, max_rows: int = 4) -> str:
    rows = [str(row) for row in x[:max_rows].tolist()]
    return "\n".join(rows + (["..."] if x.shape[0] > max_rows else []))


# --- draws ------------------------------------------------------------------
#
# A sampler is judged by what it draws, never by which random numbers it uses:
# many rows each draw a token, and each token's count is compared with what
# the model's probabilities allow.

# The most a check of draws may fail a right sampler: once in a million.
FALSE_ALARM = 1e-6


def _kl(a: float, p: float) -> float:
    """KL(Bernoulli(a) || Bernoulli(p)), for 0 < p < 1."""
    out = 0.0
    if a > 0:
        out += a * math.log(a / p)
    if a < 1:
        out += (1 - a) * math.log((1 - a) / (1 - p))
    return out


@functools.lru_cache(maxsize=1 << 14)  # a batch asks the same of every right sampler
def count_bounds(n: int, p: float, beta: float) -> tuple[int, int]:
    """(lo, hi) for the count X ~ Binomial(n, p) of one token in n draws:
    P(X <= lo) <= beta and P(X >= hi) <= beta.

    Chernoff's bound, which holds for every n (no approximation):
    P(X >= k) <= exp(-n KL(k/n || p)) for k >= np, and P(X <= k) <=
    exp(-n KL(k/n || p)) for k <= np. hi is the smallest k >= np, and lo the
    largest k <= np, whose bound is at most beta (lo = -1, hi = n + 1 where
    none is). A token of probability 0 may not be drawn at all (hi = 1)."""
    if p <= 0:
        return -1, 1
    if p >= 1:
        return n - 1, n + 1
    log_beta = math.log(beta)

    def far(k: int) -> bool:
        return -n * _kl(k / n, p) <= log_beta

    # The bound falls as k moves away from np: bisect on each side.
    a, b = math.ceil(n * p), n + 1  # far(b) by convention
    while a < b:
        mid = (a + b) // 2
        a, b = (a, mid) if far(mid) else (mid + 1, b)
    hi = a
    a, b = -1, math.floor(n * p)  # far(a) by convention
    while a < b:
        mid = (a + b + 1) // 2
        a, b = (mid, b) if far(mid) else (a, mid - 1)
    return a, hi


def unique_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct rows of ``x`` (N, ...) and each row's index among them,
    as ``torch.unique(x, dim=0, return_inverse=True)`` gives them, in order
    of first appearance. torch's row-wise unique sorts rows lexicographically,
    tenths of a second for the thousands of rows a sampling check draws; here
    each row is one number (a fixed random projection), unique in 1-D, and
    the answer is checked, falling back to torch's where two rows collide."""
    flat = x.reshape(x.shape[0], -1).to(torch.float64)
    weights = torch.randn(flat.shape[1], generator=torch.Generator().manual_seed(20261201), dtype=torch.float64)
    _, inverse = torch.unique(flat @ weights, return_inverse=True)
    n = inverse.shape[0]
    first = torch.full((int(inverse.max()) + 1,), n, dtype=torch.long).scatter_reduce(0, inverse, torch.arange(n), "amin")
    order = first.argsort()  # groups in order of first appearance
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.shape[0])
    rows, inverse = x[first[order]], rank[inverse]
    if not torch.equal(rows[inverse], x):
        return torch.unique(x, dim=0, return_inverse=True)
    return rows, inverse


def _groups(probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of ``probs`` (N, V) that hold the same distribution (to 1e-9):
    (the distributions (G, V), the group of each row (N,))."""
    keys = (probs.to(torch.float64) * 1e9).round()
    _, group = unique_rows(keys)
    first = torch.full((int(group.max()) + 1,), group.shape[0], dtype=torch.long).scatter_reduce(0, group, torch.arange(group.shape[0]), "amin")
    return probs[first].to(torch.float64), group


def draw_violations(tokens: torch.Tensor, probs: torch.Tensor, false_alarm: float = FALSE_ALARM, first_only: bool = False) -> list[dict]:
    """The counts that a sampler drawing from ``probs`` would give with
    probability below ``false_alarm`` in all (an empty list: the draws pass).

    ``tokens`` (N, S): row i's draw at step s, token ids in [0, V);
    ``probs`` (N, S, V): the distribution it should follow, given the row's
    history (the draws of earlier steps included). At each step the rows are
    grouped by their distribution; each group's count of each token is checked
    against ``count_bounds``, both ways, with ``false_alarm`` shared out
    evenly: false_alarm / S per step, and of that an equal part to each of the
    2 * V bounds of each group.

    Why the false alarm rate is at most ``false_alarm``: given everything
    drawn before step s, the rows of one group draw independently from one
    distribution p, so a token's count is Binomial(n, p_v) and breaks each of
    its two bounds with probability at most its share (Chernoff). A union
    bound over the bounds of step s gives false_alarm / S, whatever the earlier
    steps drew, and one over the S steps gives false_alarm. No approximation
    enters: the bound holds for any n and p. ``first_only``: stop at the
    first count outside its bounds."""
    out = []
    steps, vocab = probs.shape[1], probs.shape[2]
    for s in range(steps):
        dists, group = _groups(probs[:, s])
        beta = false_alarm / steps / (2 * vocab * len(dists))
        for g, p in enumerate(dists):
            drawn = tokens[group == g, s]
            n = len(drawn)
            counts = torch.bincount(drawn, minlength=vocab)
            for v in range(vocab):
                lo, hi = count_bounds(n, float(p[v]), beta)
                k = int(counts[v])
                if k <= lo or k >= hi:
                    out.append({"step": s, "p": p, "counts": counts, "n": n, "token": v, "count": k, "lo": lo, "hi": hi, "rows": int((group == g).nonzero()[0])})
                    if first_only:
                        return out
    return out


def expect_draws(tokens: torch.Tensor, probs: torch.Tensor, what: Text, diagnoses=(), false_alarm: float = FALSE_ALARM) -> None:
    """Fail unless the draws ``tokens`` (N, S) follow ``probs`` (N, S, V)
    (``draw_violations``: a right sampler fails with probability at most
    ``false_alarm``). ``diagnoses``, (probs, Text) pairs or a function that
    returns them: a hint is shown when the draws pass the same test against
    that mistake's probabilities, and against no other mistake's with a
    different hint (``one_diagnosis``); within a ``caused_by`` block whose
    finder names another function, that is said instead."""
    bad = draw_violations(tokens, probs, false_alarm)
    if not bad:
        return
    cause = _cause()
    hint = None
    if cause is None:
        if callable(diagnoses):
            diagnoses = diagnoses()
        hint = one_diagnosis(alt_hint for alt, alt_hint in diagnoses if not draw_violations(tokens, alt, false_alarm, first_only=True))
    first = bad[0]
    n, p, counts = first["n"], first["p"], first["counts"]
    step = f"第 {first['step'] + 1} 步，" if probs.shape[1] > 1 else ""
    step_en = f"at step {first['step'] + 1}, " if probs.shape[1] > 1 else ""
    where = t(f"{step}和第 {first['rows']} 行同样分布的 {n} 行", f"{step_en}the {n} rows that draw from the same distribution as row {first['rows']}")
    v, k, lo, hi = first["token"], first["count"], first["lo"], first["hi"]
    difference = t(
        f"{where.zh}：字 {v} 被抽到 {k} 次（{k / n:.4f}），它的概率是 {float(p[v]):.4f}，正确的抽样抽到它 {lo + 1} 到 {hi - 1} 次（超出的机会小于百万分之一）；共有 {len(bad)} 个计数超出范围",
        f"{where.en}: token {v} was drawn {k} times ({k / n:.4f}); its probability is {float(p[v]):.4f}, so a right sampler draws it "
        f"{lo + 1} to {hi - 1} times (it falls outside with probability below one in a million); {count(len(bad), 'count')} {'falls' if len(bad) == 1 else 'fall'} outside",
    )
    raise _failed(
        what,
        t(f"抽到的频率 {fmt(counts / n, max_cols=8)}", f"frequencies drawn {fmt(counts / n, max_cols=8)}").inline(),
        t(f"softmax 的概率 {fmt(p, max_cols=8)}", f"softmax probabilities {fmt(p, max_cols=8)}").inline(),
        cause,
        hint,
        difference,
    )


# --- inputs ----------------------------------------------------------------
#
# A check names its inputs by a seed. The student's own run uses the seeds as
# written (reproducible, and the student release replays answers recorded for
# exactly those inputs); a teacher's grading mixes in a secret drawn afresh
# per grading run (``set_inputs_seed``), so no submission can answer the
# public checks from a table of their visible inputs.
_inputs_seed = 0


def set_inputs_seed(seed: int) -> None:
    global _inputs_seed
    _inputs_seed = int(seed)


def _generator(seed: int) -> torch.Generator:
    """A generator for the check's ``seed``: as written in the student's own
    run; in a teacher's grading, seeded by a hash of (secret, check seed).

    A hash, not arithmetic: ``manual_seed`` takes 64 bits, but the CPU
    generator (mt19937) is seeded with their low 32 alone, and the low 32 bits
    of a sum or product depend only on the low 32 bits of its terms. A secret
    mixed in linearly gave the inputs of every secret that agreed with it in
    those bits, and one check's inputs were another's under a related secret.
    Each bit of the hash depends on all of the secret and of the check's seed;
    all 64 go to ``manual_seed``, for any generator that uses them."""
    if _inputs_seed == 0:
        return torch.Generator().manual_seed(seed)
    digest = hashlib.blake2b(f"{_inputs_seed}:{seed}".encode(), digest_size=8, person=b"check inputs").digest()
    return torch.Generator().manual_seed(int.from_bytes(digest, "little"))


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Inputs for a check, drawn without touching the global random state."""
    return torch.randn(*shape, generator=_generator(seed), dtype=dtype)


def randint(high: int, *shape: int, seed: int) -> torch.Tensor:
    """Token ids in [0, high) for a check (int64), drawn like ``randn``."""
    return torch.randint(high, shape, generator=_generator(seed))


def pick(seed: int, *options):
    """One of ``options``: the first in the student's own run, any of the
    others in a teacher's grading (a size such as T, which a table of the
    student's own run could otherwise key on)."""
    if _inputs_seed == 0 or len(options) == 1:
        return options[0]
    return options[1 + int(torch.randint(len(options) - 1, (), generator=_generator(seed)))]


def random_state(shapes: dict, seed: int, dtype: torch.dtype = torch.float32) -> dict:
    """Parameters for a module, by contract name: ``{"key.weight": (4, 12)}``.

    Weights named ``ln*.weight`` are drawn around 1 and biases around 0, so
    that a layer norm used in the wrong place changes the result. Every
    student of a batch gets the same ones, drawn once per grading run: the
    same tensors (their bytes are encoded and hashed once,
    ``protocol._Remembered``) in a dict of its own. A check must not change
    them in place: that is found here, the next time they are asked for."""
    key = (tuple((name, tuple(shape)) for name, shape in shapes.items()), seed, dtype, _inputs_seed)
    if key not in _states:
        state = _draw_state(shapes, seed, dtype)
        _states[key] = (state, {name: x._version for name, x in state.items()})
    state, versions = _states[key]
    changed = [name for name, x in state.items() if x._version != versions[name]]
    if changed:
        raise RuntimeError(f"a check changed the shared state's {', '.join(changed)} in place: change a copy (.clone())")
    return dict(state)


_states: dict = {}  # random_state's draws, by everything that decides them


def _draw_state(shapes: dict, seed: int, dtype: torch.dtype) -> dict:
    g = _generator(seed)
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


def expect_grads(got, want, what: Text) -> None:
    """Every parameter the reference trains gets a finite, matching gradient."""
    for name, w in want.grads.items():
        g = got.grads.get(name)
        expect(
            g is not None,
            what,
            t(f"{name} 没有梯度", f"{name} has no gradient").inline(),
            t(f"{name} 有梯度", f"{name} has a gradient").inline(),
            t(
                "输出不依赖这个参数：前向计算没有用到它，或者计算图在它之后被切断了。",
                "The output does not depend on this parameter: forward does not use it, or the graph is cut after it.",
            ),
        )
        expect_close(g, w, what=t(what.zh + f"（{name} 的梯度）", what.en + f" (gradient of {name})"), atol=1e-4, rtol=1e-3)


def describe_part(contract: str, args: dict) -> str:
    """A stand-in as the student's code built it: ``Head(n_embd=12, ...)``."""
    return f"{contract}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def expect_parts(got, want, what: Text) -> None:
    """The module built its parts (the grader's stand-ins, see standins.py)
    as the reference did: as many of each, with the same arguments."""
    g = [(contract, args) for _, contract, args in got.parts]
    w = [(contract, args) for _, contract, args in want.parts]
    if g == w:
        return
    count = lambda parts, c: sum(1 for contract, _ in parts if contract == c)  # noqa: E731 - a one-line helper
    for contract in dict.fromkeys(c for c, _ in w + g):
        n_got, n_want = count(g, contract), count(w, contract)
        if n_got != n_want:
            raise CheckFailed(
                what,
                t(f"建了 {n_got} 个 {contract}", f"{n_got} × {contract} built").inline(),
                t(f"{n_want} 个", f"{n_want} × {contract}").inline(),
                difference=t(f"{contract} 的个数不对", f"the number of {contract} parts differs"),
            )
    for (contract, have), (_, should) in zip(g, w):
        if have == should:
            continue
        differ = sorted(k for k in should if have.get(k) != should[k])
        hint = None
        if sorted(map(repr, have.values())) == sorted(map(repr, should.values())):
            hint = t(
                f"参数的顺序和约定不一样：约定是 {contract}({', '.join(should)})。",
                f"The arguments are in another order than the contract's: {contract}({', '.join(should)}).",
            )
        elif differ == ["dropout"] and not have.get("dropout"):
            hint = t(f"dropout 比例没有传给 {contract}。", f"The dropout rate is not passed on to {contract}.")
        raise CheckFailed(
            what,
            describe_part(contract, have),
            describe_part(contract, should),
            hint,
            diagnosed=hint is not None,
            difference=t(f"建 {contract} 时这些参数不同：{', '.join(differ)}", f"{contract} was built with other values of: {', '.join(differ)}"),
        )
