"""ex5_head: hidden checks."""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, fmt, pick, randn, t
from grader.authoring.contract import head_state
from grader.authoring.domain_checks import expect_module


def by_hand(state, x, scale=None, fill=float("-inf"), mask=True, values=True):
    """The head computed step by step, with one step changed: what a usual
    mistake gives (hidden checks only: this is the solution written out)."""
    q, k, v = (x @ state[f"{p}.weight"].T for p in ("query", "key", "value"))
    hs = k.shape[-1]
    wei = q @ k.transpose(-2, -1) * (hs**-0.5 if scale is None else scale)
    T = x.shape[-2]
    if mask:
        wei = wei.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), fill)
    return wei.softmax(-1) @ (v if values else x)


@pytest.mark.points(2)
def test_head_wider_than_input(sub, ref):
    """head_size 大于 n_embd，T 大于 8 / head_size larger than n_embd, T longer than 8"""
    init = dict(n_embd=6, head_size=10, block_size=16)
    state, x = head_state(6, 10, seed=61), randn(4, 12, 6, seed=62)
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x]).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x]).outs[0],
        what=t("Head(n_embd=6, head_size=10, block_size=16)，x 形状 (4, 12, 6)", "Head(n_embd=6, head_size=10, block_size=16) on x of shape (4, 12, 6)"),
        diagnoses=lambda: [
            (by_hand(state, x, scale=6**-0.5), t("你按 n_embd（x.shape[-1]）缩放了；要按 head_size（k.shape[-1]）。", "You scaled by n_embd (x.shape[-1]); scale by head_size (k.shape[-1]).")),
            (by_hand(state, x, values=False), t("你对 x 加权求和了；要对值 v = value(x) 加权求和（sum the values v）。", "You summed x; sum the values v = value(x).")),
            (by_hand(state, x, mask=False), t("没有掩码：这个头看见了未来（sees the future）。", "There is no mask: the head sees the future.")),
            (
                by_hand(state, x, fill=0.0),
                t(
                    "你把未来的分数填成了 0，不是 -inf：0 经过 softmax 仍有权重，这个头看见了未来。",
                    "You filled the future's scores with 0, not -inf: a 0 still gets weight after softmax, so the head sees the future.",
                ),
            ),
        ],
    )
    # However negative the scores, the future gets no weight (the docstring's -1e12).
    _scores_far_below_minus_1e9(sub, ref)


def far_below_state(n_embd: int = 6, head_size: int = 2) -> dict:
    """A head whose every score is about -1.4e12: keys and queries read the
    first two dims of x (queries negated), values the next two, so positions
    that agree in those first two dims (1e6 each) score the same, far below
    any finite stand-in for -inf such as -1e9, and differ in their values."""
    key = torch.zeros(head_size, n_embd)
    key[0, 0] = key[1, 1] = 1.0
    value = torch.zeros(head_size, n_embd)
    value[0, 2] = value[1, 3] = 1.0
    return {"key.weight": key, "query.weight": -key, "value.weight": value}


def _scores_far_below_minus_1e9(sub, ref):
    init = dict(n_embd=6, head_size=2, block_size=8)
    state, x = far_below_state(), randn(2, 5, 6, seed=71)
    x[..., :2] = 1e6
    what = t("每个分数都约为 -1.4e12 的 Head（远低于 -1e9）", "a Head whose every score is about -1.4e12 (far below -1e9)")
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x]).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x]).outs[0],
        what=what,
        diagnoses=lambda: [
            (
                by_hand(state, x, fill=-1e9),
                t(
                    "未来用 -1e9 之类的有限数遮住了：分数都比它还小时，权重全跑到了未来。要像 causal_mask 那样填 -inf。",
                    "The future was masked with a finite number such as -1e9: when every score is below it, the weight all goes to the future. Fill with -inf, as causal_mask does.",
                ),
            )
        ],
    )


@pytest.mark.points(2)
def test_dropout_off_in_eval(sub, ref):
    """eval 模式下没有 dropout / no dropout in eval mode"""
    init = dict(n_embd=8, head_size=4, block_size=8, dropout=0.5)
    state, x = head_state(8, 4, seed=63), randn(2, 6, 8, seed=64)
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x], train=False).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x], train=False).outs[0],
        what=t("dropout=0.5 的 Head，在 eval 模式", "a Head with dropout=0.5 in eval mode"),
    )


def _dropout_hint(row: torch.Tensor, v0: torch.Tensor):
    """What the training-mode output at position 0 says about the dropout
    (position 0 sees only itself: its one weight is 1)."""
    zero = torch.isclose(row, torch.zeros_like(row), atol=1e-5)
    doubled = torch.isclose(row, 2 * v0, atol=1e-4)
    if torch.allclose(row, v0, atol=1e-4):
        return t("训练模式下什么也没有丢弃：dropout 没有生效。", "Nothing was dropped in training mode: the dropout does not act.")
    if bool((zero | doubled).all()) and not bool((zero.all(-1) | doubled.all(-1)).all()):
        return t(
            "dropout 丢弃的是输出的单个数，而不是注意力权重：要作用在 softmax 之后的权重 wei 上（not to the output）。",
            "The dropout removes single entries of the output, not attention weights: apply it to the weights wei after softmax, not to the output.",
        )
    kept = ~zero.all(-1)
    if bool(kept.any()):
        ratio = row[kept] / v0[kept]
        k = ratio.flatten()[0]
        if torch.allclose(ratio, k.expand_as(ratio), rtol=1e-3, atol=1e-5) and not torch.isclose(k, torch.tensor(2.0)):
            return t(
                f"留下的权重变成了 {k.item():.3g}，dropout=0.5 应该变成 2：dropout 的比例不是传进来的 dropout。",
                f"The kept weight became {k.item():.3g}; with dropout=0.5 it becomes 2: the dropout rate is not the one passed in.",
            )
    return None


@pytest.mark.points(2)
def test_dropout_on_the_weights(sub):
    """训练时 dropout 作用在注意力权重上 / in training, dropout acts on the attention weights"""
    init = dict(n_embd=8, head_size=4, block_size=8, dropout=0.5)
    # T = 1 too: one position, one weight, and still a dropout on it.
    for T, seed in ((1, 67), (pick(66, 3, 4, 8), 66)):
        state, x = head_state(8, 4, seed=65), randn(32, T, 8, seed=seed)
        _expect_dropped_or_doubled(sub, init, state, x)


def _expect_dropped_or_doubled(sub, init, state, x):
    B, T = x.shape[:2]
    out = sub.module("Head", init=init, state=state, inputs=[x], train=True).outs[0]
    v0 = x[:, 0] @ state["value.weight"].T  # (B, hs): position 0 can only attend to itself
    expect(tuple(out.shape) == (B, T, 4), t("输出形状", "the output shape"), str(tuple(out.shape)), str((B, T, 4)))
    row = out[:, 0]
    dropped = torch.isclose(row, torch.zeros_like(row), atol=1e-5).all(-1)
    kept = torch.isclose(row, 2 * v0, atol=1e-4).all(-1)
    hint = _dropout_hint(row, v0)
    expect(
        bool((dropped | kept).all()) and bool(dropped.any()) and bool(kept.any()),
        t(
            f"训练模式、dropout=0.5、T = {T}：位置 0 只看自己，它的权重 1 要么被丢弃（输出全 0），要么变成 2（输出 2·v₀）",
            f"train mode, dropout=0.5, T = {T}: position 0 sees only itself, so its weight 1 is either dropped (output all 0) or becomes 2 (output 2·v₀)",
        ),
        fmt(row[:4]),
        t("每行要么全 0，要么等于 2·v₀", "each row either all 0 or exactly 2·v₀").inline(),
        hint,
        diagnosed=hint is not None,
    )


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    init = dict(n_embd=5, head_size=3, block_size=4)
    state, x = head_state(5, 3, seed=67, dtype=torch.float64), randn(2, 4, 5, seed=68, dtype=torch.float64)
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x], dtype=torch.float64).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x], dtype=torch.float64).outs[0],
        what=t("整个 Head 转成 float64（module.double()）", "the whole Head in float64 (module.double())"),
    )


def head_sweep(sub, ref):
    """The Head's domain, in one round trip: T from 1 to block_size, every
    memory layout, float64 (head.double()), train mode with dropout > 0 and
    then backward; and a Head built without a dropout argument, whose
    default must be the contract's 0."""
    hs = pick(69, 3, 5, 6, 7)  # no square: a root taken in integers is wrong
    init = [6, hs, 5, 0.25]
    expect_module(sub, ref, "Head", seed=69, init=init, state=head_state(6, hs, seed=69), default_init=init[:3], n_embd=6, block_size=5)


@pytest.mark.points(1)
def test_input_gradient(sub, ref):
    """定义域里的输入，train 和 eval 模式，梯度传回参数和输入 x / inputs from the domain, in train and eval mode: gradients reach the parameters and the input x"""
    head_sweep(sub, ref)
