"""ex5_head: public checks.

Sizes are chosen so that the usual slips show: n_embd != head_size != T !=
block_size, block_size > 8, and B > 1. Heads are built as MultiHeadAttention
builds them: Head(n_embd, head_size, block_size), positionally.
"""

import pytest
import torch

from grader.authoring.checking import expect, expect_close, expect_grads, pick, randn, t
from grader.authoring.contract import head_state as _head_state
from grader.authoring.worked_examples import expect_example

N_EMBD, HS, BLOCK = 12, 4, 10
INIT = [N_EMBD, HS, BLOCK]


def head_state(seed):
    return _head_state(N_EMBD, HS, seed)


def scaled_query(state, factor):
    """The same head with its queries scaled: what a wrong scale factor gives."""
    return dict(state, **{"query.weight": state["query.weight"] * factor})


@pytest.mark.points(1)
def test_output_matches(sub, ref):
    """输出与参考一致 / the output matches the reference"""
    B, T = pick(52, (2, 5), (3, 7), (4, 9), (5, 6))  # other sizes at the teacher's grading: none can be hard-coded
    state, x = head_state(seed=51), randn(B, T, N_EMBD, seed=52)
    want = ref.module("Head", init=INIT, state=state, inputs=[x]).outs[0]
    by_n_embd = ref.module("Head", init=INIT, state=scaled_query(state, (HS / N_EMBD) ** 0.5), inputs=[x]).outs[0]
    unscaled = ref.module("Head", init=INIT, state=scaled_query(state, HS**0.5), inputs=[x]).outs[0]
    got = sub.module("Head", init=INIT, state=state, inputs=[x]).outs[0]
    expect_close(
        got,
        want,
        what=t(
            f"Head({N_EMBD}, {HS}, {BLOCK})，x 形状 ({B}, {T}, {N_EMBD})，eval 模式",
            f"Head({N_EMBD}, {HS}, {BLOCK}) on x of shape ({B}, {T}, {N_EMBD}), eval mode",
        ),
        diagnoses=lambda: [
            (by_n_embd, t("你按 n_embd（C）缩放了；要按 head_size 缩放。", "You scaled by n_embd (C); scale by head_size.")),
            (unscaled, t("你没有缩放分数：乘以 head_size ** -0.5。", "The scores are not scaled: multiply by head_size ** -0.5.")),
        ],
    )


@pytest.mark.points(1)
def test_one_head_many_lengths(sub, ref):
    """同一个 Head 先后处理 T = 1、3、block_size / one Head on T = 1, 3 and block_size in turn"""
    state = head_state(seed=53)
    xs = [randn(3, T, N_EMBD, seed=54 + T) for T in (1, 3, BLOCK)]
    got = sub.module("Head", init=INIT, state=state, inputs=xs).outs
    want = ref.module("Head", init=INIT, state=state, inputs=xs).outs
    for x, g, w in zip(xs, got, want):
        expect_close(
            g,
            w,
            what=t(
                f"同一个 Head 依次处理 T = 1、3、{BLOCK} 的输入；这里是 x 形状 {tuple(x.shape)}",
                f"one Head given inputs of T = 1, 3 and {BLOCK} in turn; here x of shape {tuple(x.shape)}",
            ),
        )


@pytest.mark.points(2)
def test_does_not_see_the_future(sub, ref):
    """改动后面的位置不影响前面的输出 / changing later positions leaves earlier outputs alone"""
    state = head_state(seed=56)
    x = randn(2, 6, N_EMBD, seed=57)
    y = x.clone()
    y[:, 4:] = randn(2, 2, N_EMBD, seed=58) * 5
    a, b = sub.module("Head", init=INIT, state=state, inputs=[x, y]).outs
    expect(
        a.shape != b.shape or a.shape != (2, 6, HS) or torch.allclose(a[:, :4], b[:, :4], atol=1e-5),
        t("只改动位置 4、5 之后，位置 0..3 的输出", "outputs at positions 0..3 after changing only positions 4 and 5"),
        t("变了：模型看见了未来", "they changed: the head sees the future").inline(),
        t("不变", "unchanged").inline(),
        t(
            "前面位置的输出随后面的位置变了：对角线以上（j > i）的权重在 softmax 之后必须恰好是 0。",
            "Earlier outputs changed with later positions: every weight above the diagonal (j > i) must be exactly 0 after softmax.",
        ),
        diagnosed=True,
    )
    expect_close(a, ref.module("Head", init=INIT, state=state, inputs=[x]).outs[0], what=t(f"x 形状 (2, 6, {N_EMBD}) 的输出", f"the output for x of shape (2, 6, {N_EMBD})"))


@pytest.mark.points(2)
def test_gradients_reach_every_parameter(sub, ref):
    """梯度传到每个参数 / gradients reach every parameter"""
    state, x = head_state(seed=59), randn(2, 5, N_EMBD, seed=60)
    expect_grads(
        sub.module("Head", init=INIT, state=state, inputs=[x], backward=True),
        ref.module("Head", init=INIT, state=state, inputs=[x], backward=True),
        what=t("对 key、query、value 的梯度", "the gradients of key, query and value"),
    )


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """head.double() 之后 float64 进，float64 出 / after head.double(): float64 in, float64 out"""
    state, x = _head_state(N_EMBD, HS, seed=251, dtype=torch.float64), randn(2, 6, N_EMBD, seed=252, dtype=torch.float64)
    expect_close(
        sub.module("Head", init=INIT, state=state, inputs=[x], dtype=torch.float64).outs[0],
        ref.module("Head", init=INIT, state=state, inputs=[x], dtype=torch.float64).outs[0],
        what=t(
            f"Head({N_EMBD}, {HS}, {BLOCK}).double()，float64 的 x (2, 6, {N_EMBD})：输出也是 float64",
            f"Head({N_EMBD}, {HS}, {BLOCK}).double() on a float64 x of shape (2, 6, {N_EMBD}): the output is float64 too",
        ),
    )


EXAMPLE = """
>>> head = Head(n_embd=4, head_size=2, block_size=8)
>>> head(torch.randn(3, 5, 4)).shape
torch.Size([3, 5, 2])
"""


@pytest.mark.points(1)
def test_docstring_example(sub, ref):
    """文档里的例子：Head(n_embd=4, head_size=2, block_size=8) 的输出形状 / the docstring's example: the output shape of Head(n_embd=4, head_size=2, block_size=8)"""
    # The example's head with the contract's weights loaded: the values, not only the shape.
    init, state, x = dict(n_embd=4, head_size=2, block_size=8), _head_state(4, 2, seed=5), randn(3, 5, 4, seed=6)
    ((got, want),) = expect_example(sub, ref, EXAMPLE, also=[("Head", dict(init=init, state=state, inputs=[x]))])
    expect_close(
        got.outs[0],
        want.outs[0],
        what=t(
            "文档里例子的 Head(n_embd=4, head_size=2, block_size=8)，装上评分程序的权重，x 形状 (3, 5, 4)",
            "the docstring's Head(n_embd=4, head_size=2, block_size=8) with the grader's weights loaded, on x of shape (3, 5, 4)",
        ),
    )
