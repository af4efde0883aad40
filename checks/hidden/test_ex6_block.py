"""ex6_block: hidden checks (graded with stand-ins, like the public ones)."""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, expect_parts, fmt, randn, t
from grader.authoring.contract import BLOCK_STANDINS, MHA_STANDINS, block_by_hand, block_state, ffwd_state, mha_state
from grader.authoring.domain_checks import expect_module


def reversed_heads(state: dict, n_head: int) -> dict:
    """The same attention with its heads in reverse order: what concatenating them backwards gives."""
    out = dict(state)
    for i in range(n_head):
        for p in ("key", "query", "value"):
            out[f"heads.{i}.{p}.weight"] = state[f"heads.{n_head - 1 - i}.{p}.weight"]
    return out


@pytest.mark.points(1)
def test_many_heads(sub, ref):
    """四个头，每个头宽 4 / four heads of size 4"""
    init = [16, 4, 6]
    state, x = mha_state(16, 4, seed=81), randn(2, 6, 16, seed=82)
    what = t("MultiHeadAttention(16, 4, 6)", "MultiHeadAttention(16, 4, 6)")
    got = sub.module("MultiHeadAttention", init=init, state=state, inputs=[x], standins=MHA_STANDINS)
    want = ref.module("MultiHeadAttention", init=init, state=state, inputs=[x], standins=MHA_STANDINS)
    backwards = ref.module("MultiHeadAttention", init=init, state=reversed_heads(state, 4), inputs=[x], standins=MHA_STANDINS).outs[0]
    expect_parts(got, want, what)
    expect_close(
        got.outs[0],
        want.outs[0],
        what=what,
        diagnoses=lambda: [(backwards, t("各头拼接的顺序反了：按 heads 的顺序拼接。", "The heads are concatenated in reverse: concatenate in the order of heads."))],
    )


@pytest.mark.points(1)
def test_attention_dropout_off_in_eval(sub, ref):
    """dropout 传给每个头；eval 模式下没有 dropout / dropout is passed on to every head; none in eval mode"""
    init = [12, 2, 6, 0.5]  # heads of 6: not the public checks' 4
    state = mha_state(12, 2, seed=83)
    # Over the domain: eval draws (no dropout), train draws (dropout, backward),
    # the heads built with the contract's four arguments on every draw.
    expect_module(sub, ref, "MultiHeadAttention", seed=84, init=init, state=state, default_init=init[:3], standins=MHA_STANDINS, n_embd=12, block_size=6)


@pytest.mark.points(1)
def test_feed_forward_other_size_and_eval(sub, ref):
    """另一个宽度；eval 模式没有 dropout / another width; no dropout in eval mode"""
    n = 5
    init = [n, 0.5]
    state = ffwd_state(n, seed=85)
    expect_module(sub, ref, "FeedForward", seed=86, init=init, state=state, default_init=[n], n_embd=n)


@pytest.mark.points(1)
def test_block_gradients(sub, ref):
    """梯度传到 Block 的每个参数 / gradients reach every parameter of the Block"""
    block_sweep(sub, ref)


def block_sweep(sub, ref):
    """The Block's domain, in train mode too: built on the stand-ins, which
    drop nothing, a Block in train mode computes what it does in eval mode."""
    expect_module(sub, ref, "Block", seed=88, init=[8, 2, 6, 0.25], state=block_state(8, seed=87), exact_in_train=True, standins=BLOCK_STANDINS, n_embd=8, block_size=6)


@pytest.mark.points(1)
def test_block_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    init = [6, 2, 4]
    state, x = block_state(6, seed=89, dtype=torch.float64), randn(2, 4, 6, seed=90, dtype=torch.float64)
    expect_close(
        sub.module("Block", init=init, state=state, inputs=[x], standins=BLOCK_STANDINS, dtype=torch.float64).outs[0],
        ref.module("Block", init=init, state=state, inputs=[x], standins=BLOCK_STANDINS, dtype=torch.float64).outs[0],
        what=t("整个 Block 转成 float64", "the whole Block in float64"),
    )


@pytest.mark.points(1)
def test_block_does_not_see_the_future(sub, ref):
    """Block 不看未来 / the Block does not see the future"""
    init = [8, 2, 8]
    state = block_state(8, seed=91)
    x = randn(2, 7, 8, seed=92)
    y = x.clone()
    y[:, 5:] = randn(2, 2, 8, seed=93) * 4
    a, b = sub.module("Block", init=init, state=state, inputs=[x, y], standins=BLOCK_STANDINS).outs
    expect_close(
        a,
        ref.module("Block", init=init, state=state, inputs=[x], standins=BLOCK_STANDINS).outs[0],
        what=t("Block(8, 2, 8)，x 形状 (2, 7, 8)", "Block(8, 2, 8) on x of shape (2, 7, 8)"),
        diagnoses=lambda: [
            (
                block_by_hand(state, x, 2, 8, norm_dims=(-2, -1)),
                t(
                    "层归一化在 T 和 C 两维上求了平均：LayerNorm 只在最后一维（n_embd）上归一化（last dim only）。",
                    "Layer norm averaged over T and C: LayerNorm normalises over the last dim only (n_embd).",
                ),
            )
        ],
    )
    expect(
        a.shape != b.shape or a.shape != (2, 7, 8) or torch.allclose(a[:, :5], b[:, :5], atol=1e-5),
        t("只改动位置 5、6 之后，位置 0..4 的输出", "outputs at positions 0..4 after changing only positions 5 and 6"),
        t("变了", "they changed").inline(),
        t("不变", "unchanged").inline(),
        t(
            "前面位置的输出随后面的位置变了：替身 sa 和 ffwd 不看未来，所以是 Block 自己的计算跨了时间。",
            "Earlier outputs changed with later positions: the stand-in sa and ffwd never look ahead, so the Block's own code mixes positions.",
        ),
        diagnosed=True,
    )


@pytest.mark.points(1)
def test_block_passes_its_arguments_on(sub, ref):
    """Block 把 n_head、block_size、dropout 传给 sa 和 ffwd / the Block passes n_head, block_size and dropout on to sa and ffwd"""
    init = [8, 2, 6, 0.25]
    state, x = block_state(8, seed=94), randn(2, 5, 8, seed=95)
    what = t("Block(8, 2, 6, dropout=0.25)，eval 模式", "Block(8, 2, 6, dropout=0.25) in eval mode")
    got = sub.module("Block", init=init, state=state, inputs=[x], standins=BLOCK_STANDINS)
    want = ref.module("Block", init=init, state=state, inputs=[x], standins=BLOCK_STANDINS)
    expect_parts(got, want, what)
    expect_close(got.outs[0], want.outs[0], what=what)


def _dropped_or_doubled(train_out, eval_out) -> bool:
    """With dropout=0.5 as the last step, each output is 0 or twice its eval value."""
    zero = torch.isclose(train_out, torch.zeros_like(train_out), atol=1e-6)
    doubled = torch.isclose(train_out, 2 * eval_out, atol=1e-4, rtol=1e-4)
    return bool((zero | doubled).all()) and bool(zero.any()) and bool(doubled.any())


@pytest.mark.points(1)
def test_attention_dropout_last_in_training(sub, ref):
    """训练时 dropout 在投影之后 / in training, dropout comes after the projection"""
    init = [8, 2, 6, 0.5]
    state, x = mha_state(8, 2, seed=96), randn(4, 5, 8, seed=97)
    eval_out = ref.module("MultiHeadAttention", init=init, state=state, inputs=[x], standins=MHA_STANDINS).outs[0]
    got = sub.module("MultiHeadAttention", init=init, state=state, inputs=[x], train=True, standins=MHA_STANDINS).outs[0]
    expect(
        tuple(got.shape) == (4, 5, 8) and _dropped_or_doubled(got, eval_out),
        t(
            "训练模式、dropout=0.5（替身 Head 自己没有 dropout）：每个输出要么是 0，要么是 eval 输出的 2 倍",
            "train mode, dropout=0.5 (the stand-in heads have no dropout): each output is 0 or twice the eval output",
        ),
        fmt(got[0]),
        t("0 或 2 × eval 输出", "0 or 2 × the eval output").inline(),
    )


@pytest.mark.points(1)
def test_feed_forward_dropout_last_in_training(sub, ref):
    """训练时前馈层最后做 dropout / in training, the feed-forward layer ends with dropout"""
    n = 6
    init = [n, 0.5]
    state = ffwd_state(n, seed=98)
    x = randn(4, 3, n, seed=99)
    eval_out = ref.module("FeedForward", init=init, state=state, inputs=[x]).outs[0]
    got = sub.module("FeedForward", init=init, state=state, inputs=[x], train=True).outs[0]
    expect(
        tuple(got.shape) == (4, 3, n) and _dropped_or_doubled(got, eval_out),
        t("训练模式、dropout=0.5：每个输出要么是 0，要么是 eval 输出的 2 倍", "train mode, dropout=0.5: each output is 0 or twice the eval output"),
        fmt(got[0]),
        t("0 或 2 × eval 输出", "0 or 2 × the eval output").inline(),
    )
