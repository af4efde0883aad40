"""ex6_block: hidden checks (graded with stand-ins, like the public ones)."""
import pytest
import torch

from grader.checking import expect, expect_close, expect_grads, fmt, randn, t
from grader.contract import block_state, ffwd_state, mha_state
from grader.contract import block_standins as standins


@pytest.mark.points(2)
def test_many_heads(sub, ref):
    """四个头，每个头宽 4 / four heads of size 4"""
    init = dict(n_embd=16, n_head=4, block_size=6)
    state, x = mha_state(16, 4, seed=81), randn(2, 6, 16, seed=82)
    expect_close(
        sub.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        ref.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        what=t("MultiHeadAttention(n_embd=16, n_head=4, block_size=6)", "MultiHeadAttention(n_embd=16, n_head=4, block_size=6)"),
        hint=t("按 heads 的顺序拼接，在最后一维（dim=-1）。", "Concatenate in the order of heads, on the last dim (dim=-1)."),
    )


@pytest.mark.points(2)
def test_attention_dropout_off_in_eval(sub, ref):
    """eval 模式下多头注意力没有 dropout / no dropout in multi-head attention in eval mode"""
    init = dict(n_embd=8, n_head=2, block_size=6, dropout=0.5)
    state, x = mha_state(8, 2, seed=83), randn(2, 4, 8, seed=84)
    expect_close(
        sub.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        ref.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        what=t("dropout=0.5，eval 模式", "dropout=0.5 in eval mode"),
        hint=t("dropout 用 nn.Dropout 模块，eval() 时自动关闭。", "Use nn.Dropout modules: they switch off under eval()."),
    )


@pytest.mark.points(2)
def test_feed_forward_other_size_and_eval(sub, ref):
    """另一个宽度；eval 模式没有 dropout / another width; no dropout in eval mode"""
    n = 5
    init = dict(n_embd=n, dropout=0.5)
    state = ffwd_state(n, seed=85)
    x = randn(3, 2, n, seed=86)
    expect_close(
        sub.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        ref.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        what=t("FeedForward(n_embd=5, dropout=0.5)，eval 模式", "FeedForward(n_embd=5, dropout=0.5) in eval mode"),
    )


@pytest.mark.points(2)
def test_block_gradients(sub, ref):
    """梯度传到 Block 的每个参数 / gradients reach every parameter of the Block"""
    init = dict(n_embd=8, n_head=2, block_size=6)
    state, x = block_state(8, seed=87), randn(2, 5, 8, seed=88)
    expect_grads(
        sub.module("Block", init=init, state=state, inputs=[x], replace=standins(8), backward=True),
        ref.module("Block", init=init, state=state, inputs=[x], replace=standins(8), backward=True),
        what=t("Block 各参数的梯度（ln1、ln2、sa、ffwd）", "the gradients of the Block's parameters (ln1, ln2, sa, ffwd)"),
        hint=t("ln1 用在 sa 之前，ln2 用在 ffwd 之前，两者都要用到。", "ln1 goes before sa and ln2 before ffwd; both must be used."),
    )


@pytest.mark.points(1)
def test_block_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    init = dict(n_embd=6, n_head=2, block_size=4)
    state, x = block_state(6, seed=89, dtype=torch.float64), randn(2, 4, 6, seed=90, dtype=torch.float64)
    expect_close(
        sub.module("Block", init=init, state=state, inputs=[x], replace=standins(6), dtype=torch.float64).outs[0],
        ref.module("Block", init=init, state=state, inputs=[x], replace=standins(6), dtype=torch.float64).outs[0],
        what=t("整个 Block 转成 float64", "the whole Block in float64"),
        atol=1e-10,
        rtol=1e-8,
    )


@pytest.mark.points(2)
def test_block_does_not_see_the_future(sub):
    """Block 不看未来 / the Block does not see the future"""
    init = dict(n_embd=8, n_head=2, block_size=8)
    state = block_state(8, seed=91)
    x = randn(2, 7, 8, seed=92)
    y = x.clone()
    y[:, 5:] = randn(2, 2, 8, seed=93) * 4
    a, b = sub.module("Block", init=init, state=state, inputs=[x, y], replace=standins(8)).outs
    expect(
        a.shape == b.shape == (2, 7, 8) and torch.allclose(a[:, :5], b[:, :5], atol=1e-5),
        t("只改动位置 5、6 之后，位置 0..4 的输出", "outputs at positions 0..4 after changing only positions 5 and 6"),
        t("变了", "they changed").inline(),
        t("不变", "unchanged").inline(),
        t("LayerNorm 只在最后一维（n_embd）上归一化：nn.LayerNorm(n_embd)。", "LayerNorm normalises over the last dim only (n_embd): nn.LayerNorm(n_embd)."),
    )


def _dropped_or_doubled(train_out, eval_out) -> bool:
    """With dropout=0.5 as the last step, each output is 0 or twice its eval value."""
    zero = torch.isclose(train_out, torch.zeros_like(train_out), atol=1e-6)
    doubled = torch.isclose(train_out, 2 * eval_out, atol=1e-4, rtol=1e-4)
    return bool((zero | doubled).all()) and bool(zero.any()) and bool(doubled.any())


@pytest.mark.points(1)
def test_attention_dropout_last_in_training(sub, ref):
    """训练时 dropout 在投影之后 / in training, dropout comes after the projection"""
    init = dict(n_embd=8, n_head=2, block_size=6, dropout=0.5)
    state, x = mha_state(8, 2, seed=94), randn(4, 5, 8, seed=95)
    eval_out = ref.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0]
    got = sub.module("MultiHeadAttention", init=init, state=state, inputs=[x], train=True).outs[0]
    expect(
        tuple(got.shape) == (4, 5, 8) and _dropped_or_doubled(got, eval_out),
        t(
            "训练模式、dropout=0.5（替身 Head 自己没有 dropout）：每个输出要么是 0，要么是 eval 输出的 2 倍",
            "train mode, dropout=0.5 (the stand-in heads have no dropout): each output is 0 or twice the eval output",
        ),
        fmt(got[0]),
        t("0 或 2 × eval 输出", "0 or 2 × the eval output").inline(),
        t("forward 的最后一步是 self.dropout(self.proj(out))：先投影，再 dropout。", "forward ends with self.dropout(self.proj(out)): project first, then dropout."),
    )


@pytest.mark.points(1)
def test_feed_forward_dropout_last_in_training(sub, ref):
    """训练时前馈层最后做 dropout / in training, the feed-forward layer ends with dropout"""
    n = 6
    init = dict(n_embd=n, dropout=0.5)
    state = ffwd_state(n, seed=96)
    x = randn(4, 3, n, seed=97)
    eval_out = ref.module("FeedForward", init=init, state=state, inputs=[x]).outs[0]
    got = sub.module("FeedForward", init=init, state=state, inputs=[x], train=True).outs[0]
    expect(
        tuple(got.shape) == (4, 3, n) and _dropped_or_doubled(got, eval_out),
        t("训练模式、dropout=0.5：每个输出要么是 0，要么是 eval 输出的 2 倍", "train mode, dropout=0.5: each output is 0 or twice the eval output"),
        fmt(got[0]),
        t("0 或 2 × eval 输出", "0 or 2 × the eval output").inline(),
        t("net 的最后一层是 nn.Dropout(dropout)。", "The last layer of net is nn.Dropout(dropout)."),
    )
