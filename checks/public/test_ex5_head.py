"""ex5_head: public checks.

Sizes are chosen so that the usual slips show: n_embd != head_size != T !=
block_size, and B > 1.
"""
import pytest
import torch

from grader.checking import expect, expect_close, expect_grads, randn, t
from grader.contract import head_state as _head_state

N_EMBD, HS, BLOCK = 12, 4, 8


def head_state(seed):
    return _head_state(N_EMBD, HS, seed)


def scaled_query(state, factor):
    """The same head with its queries scaled: what a wrong scale factor gives."""
    return dict(state, **{"query.weight": state["query.weight"] * factor})


INIT = dict(n_embd=N_EMBD, head_size=HS, block_size=BLOCK)


@pytest.mark.points(4)
def test_output_matches(sub, ref):
    """输出与参考一致 / the output matches the reference"""
    state, x = head_state(seed=51), randn(2, 5, N_EMBD, seed=52)
    want = ref.module("Head", init=INIT, state=state, inputs=[x]).outs[0]
    by_n_embd = ref.module("Head", init=INIT, state=scaled_query(state, (HS / N_EMBD) ** 0.5), inputs=[x]).outs[0]
    unscaled = ref.module("Head", init=INIT, state=scaled_query(state, HS**0.5), inputs=[x]).outs[0]
    got = sub.module("Head", init=INIT, state=state, inputs=[x]).outs[0]
    expect_close(
        got,
        want,
        what=t(
            f"Head(n_embd={N_EMBD}, head_size={HS}, block_size={BLOCK})，x 形状 (2, 5, {N_EMBD})，eval 模式",
            f"Head(n_embd={N_EMBD}, head_size={HS}, block_size={BLOCK}) on x of shape (2, 5, {N_EMBD}), eval mode",
        ),
        hint=t(
            "顺序：k、q、v 三个线性层 → q @ kᵀ × head_size ** -0.5 → 掩码 → softmax(dim=-1) → dropout → @ v。",
            "In order: the k, q, v linear layers -> q @ kᵀ * head_size ** -0.5 -> mask -> softmax(dim=-1) -> dropout -> @ v.",
        ),
        diagnoses=[
            (by_n_embd, t("你按 n_embd（C）缩放了；要按 head_size 缩放。", "You scaled by n_embd (C); scale by head_size.")),
            (unscaled, t("你没有缩放分数：乘以 head_size ** -0.5。", "The scores are not scaled: multiply by head_size ** -0.5.")),
        ],
    )


@pytest.mark.points(2)
def test_shapes_short_and_full(sub, ref):
    """T = 1 与 T = block_size / T = 1 and T = block_size"""
    state = head_state(seed=53)
    for T, seed in ((1, 54), (BLOCK, 55)):
        x = randn(3, T, N_EMBD, seed=seed)
        expect_close(
            sub.module("Head", init=INIT, state=state, inputs=[x]).outs[0],
            ref.module("Head", init=INIT, state=state, inputs=[x]).outs[0],
            what=t(f"x 形状 (3, {T}, {N_EMBD})", f"x of shape (3, {T}, {N_EMBD})"),
            hint=t("掩码要切到当前的 T：tril[:T, :T]。", "Cut the mask to the current T: tril[:T, :T]."),
        )


@pytest.mark.points(2)
def test_does_not_see_the_future(sub):
    """改动后面的位置不影响前面的输出 / changing later positions leaves earlier outputs alone"""
    state = head_state(seed=56)
    x = randn(2, 6, N_EMBD, seed=57)
    y = x.clone()
    y[:, 4:] = randn(2, 2, N_EMBD, seed=58) * 5
    a, b = sub.module("Head", init=INIT, state=state, inputs=[x, y]).outs
    expect(
        a.shape == b.shape == (2, 6, HS) and torch.allclose(a[:, :4], b[:, :4], atol=1e-5),
        t("只改动位置 4、5 之后，位置 0..3 的输出", "outputs at positions 0..3 after changing only positions 4 and 5"),
        t("变了：模型看见了未来", "they changed: the head sees the future").inline(),
        t("不变", "unchanged").inline(),
        t(
            "softmax 之前把对角线以上（j > i）设为 -inf；用 tril，不是 triu，也不是填 0。",
            "Before softmax set everything above the diagonal (j > i) to -inf; use tril, not triu, and not 0.",
        ),
    )


@pytest.mark.points(2)
def test_gradients_reach_every_parameter(sub, ref):
    """梯度传到每个参数 / gradients reach every parameter"""
    state, x = head_state(seed=59), randn(2, 5, N_EMBD, seed=60)
    expect_grads(
        sub.module("Head", init=INIT, state=state, inputs=[x], backward=True),
        ref.module("Head", init=INIT, state=state, inputs=[x], backward=True),
        what=t("对 key、query、value 的梯度", "the gradients of key, query and value"),
    )
