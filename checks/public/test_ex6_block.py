"""ex6_block: public checks.

ex6 is graded with the grader's stand-ins (grader/child/standins.py) in place of
your Head, MultiHeadAttention and FeedForward wherever they are parts of what
is checked, so a mistake in ex5 (or in the attention, for the Block) never
costs points twice. The stand-ins are swapped in when your code calls
``Head(...)``, ``MultiHeadAttention(...)`` or ``FeedForward(...)``, whether
Head comes from ex5_head or from this file, and they note the arguments your
code passes them: those must be the contract's. Modules are built as a model
builds them, with positional arguments in the contract's order.
"""

import pytest
import torch

from grader.authoring.checking import expect_close, expect_parts, pick, randn, t
from grader.authoring.contract import BLOCK_STANDINS, MHA_STANDINS, block_by_hand, block_state, ffwd_state, mha_state
from grader.authoring.worked_examples import expect_example

N_EMBD, N_HEAD, BLOCK = 12, 3, 8
INIT = [N_EMBD, N_HEAD, BLOCK]  # MultiHeadAttention(n_embd, n_head, block_size), Block(n_embd, n_head, block_size)


def block_diagnoses(state, x):
    return [
        (
            block_by_hand(state, x, N_HEAD, BLOCK, order="post"),
            t("这是后置归一化 ln1(x + sa(x))：要前置，x + sa(ln1(x))（不是 post-norm）。", "This is post-norm, ln1(x + sa(x)): normalise first, x + sa(ln1(x)) (pre-norm, not post-norm)."),
        ),
        (
            block_by_hand(state, x, N_HEAD, BLOCK, order="no_residual"),
            t("没有残差连接：要把 sa(...) 和 ffwd(...) 加回到 x 上。", "There are no residual connections: add sa(...) and ffwd(...) back onto x."),
        ),
    ]


@pytest.mark.points(1)
def test_feed_forward(sub, ref):
    """FeedForward 的输出 / the output of FeedForward"""
    init, state, x = [N_EMBD], ffwd_state(N_EMBD, seed=71), randn(2, 5, N_EMBD, seed=72)
    expect_close(
        sub.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        ref.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        what=t(f"FeedForward({N_EMBD})，x 形状 (2, 5, {N_EMBD})", f"FeedForward({N_EMBD}) on x of shape (2, 5, {N_EMBD})"),
    )


@pytest.mark.points(1)
def test_multi_head_attention(sub, ref):
    """多头注意力：拼接各头，再投影 / multi-head attention: concatenate the heads, then project"""
    # Another number of heads and other sizes at the teacher's grading: none can be hard-coded.
    n_head, B, T = pick(73, (N_HEAD, 2, 5), (2, 3, 6), (4, 2, 7), (6, 4, 3))
    init = [N_EMBD, n_head, BLOCK]
    state, x = mha_state(N_EMBD, n_head, seed=73), randn(B, T, N_EMBD, seed=74)
    what = t(
        f"MultiHeadAttention({N_EMBD}, {n_head}, {BLOCK})（用评分程序的替身 Head），x 形状 ({B}, {T}, {N_EMBD})",
        f"MultiHeadAttention({N_EMBD}, {n_head}, {BLOCK}) (with the grader's stand-in Head) on x of shape ({B}, {T}, {N_EMBD})",
    )
    got = sub.module("MultiHeadAttention", init=init, state=state, inputs=[x], standins=MHA_STANDINS)
    want = ref.module("MultiHeadAttention", init=init, state=state, inputs=[x], standins=MHA_STANDINS)
    expect_parts(got, want, what)
    expect_close(got.outs[0], want.outs[0], what=what)


@pytest.mark.points(1)
def test_block_pre_norm_residuals(sub, ref):
    """GPT 块：前置层归一化与残差 / the GPT block: pre-norm and residuals"""
    state, x = block_state(N_EMBD, seed=75), randn(2, 5, N_EMBD, seed=76)
    what = t(
        f"Block({N_EMBD}, {N_HEAD}, {BLOCK}) 的输出（sa 和 ffwd 是评分程序的替身）",
        f"Block({N_EMBD}, {N_HEAD}, {BLOCK})'s output (with the grader's stand-ins as sa and ffwd)",
    )
    got = sub.module("Block", init=INIT, state=state, inputs=[x], standins=BLOCK_STANDINS)
    want = ref.module("Block", init=INIT, state=state, inputs=[x], standins=BLOCK_STANDINS)
    expect_parts(got, want, what)
    expect_close(got.outs[0], want.outs[0], what=what, diagnoses=lambda: block_diagnoses(state, x))


@pytest.mark.points(1)
def test_block_short_sequence(sub, ref):
    """T = 1 时的 Block / the Block with T = 1"""
    state, x = block_state(N_EMBD, seed=77), randn(3, 1, N_EMBD, seed=78)
    what = t(f"x 形状 (3, 1, {N_EMBD})", f"x of shape (3, 1, {N_EMBD})")
    got = sub.module("Block", init=INIT, state=state, inputs=[x], standins=BLOCK_STANDINS)
    want = ref.module("Block", init=INIT, state=state, inputs=[x], standins=BLOCK_STANDINS)
    expect_parts(got, want, what)
    expect_close(got.outs[0], want.outs[0], what=what, diagnoses=lambda: block_diagnoses(state, x))


@pytest.mark.points(1)
def test_keeps_the_dtype(sub, ref):
    """.double() 之后 float64 进，float64 出 / after .double(): float64 in, float64 out"""
    x = randn(2, 4, N_EMBD, seed=261, dtype=torch.float64)
    parts = (
        ("FeedForward", [N_EMBD], ffwd_state(N_EMBD, seed=262), None),
        ("MultiHeadAttention", INIT, mha_state(N_EMBD, N_HEAD, seed=263), MHA_STANDINS),
        ("Block", INIT, block_state(N_EMBD, seed=264, dtype=torch.float64), BLOCK_STANDINS),
    )
    for cls, init, state, standins in parts:
        state = {name: value.double() for name, value in state.items()}
        extra = {"standins": standins} if standins else {}
        what = t(f"{cls}.double()，float64 的 x (2, 4, {N_EMBD})：输出也是 float64", f"{cls}.double() on a float64 x of shape (2, 4, {N_EMBD}): the output is float64 too")
        expect_close(
            sub.module(cls, init=init, state=state, inputs=[x], dtype=torch.float64, **extra).outs[0],
            ref.module(cls, init=init, state=state, inputs=[x], dtype=torch.float64, **extra).outs[0],
            what=what,
        )


MHA_EXAMPLE = """
>>> mha = MultiHeadAttention(n_embd=8, n_head=2, block_size=4)
>>> mha(torch.randn(1, 3, 8)).shape
torch.Size([1, 3, 8])
"""
FFWD_EXAMPLE = """
>>> FeedForward(n_embd=8)(torch.randn(2, 3, 8)).shape
torch.Size([2, 3, 8])
"""
BLOCK_EXAMPLE = """
>>> Block(n_embd=8, n_head=2, block_size=4)(torch.randn(2, 3, 8)).shape
torch.Size([2, 3, 8])
"""


@pytest.mark.points(1)
def test_docstring_example_multi_head_attention(sub, ref):
    """文档里的例子：MultiHeadAttention 的输出形状 / the docstring's example: MultiHeadAttention's output shape"""
    expect_example_values(sub, ref, MHA_EXAMPLE, "MultiHeadAttention", dict(n_embd=8, n_head=2, block_size=4), mha_state(8, 2, seed=7), (1, 3, 8), standins=MHA_STANDINS)


@pytest.mark.points(1)
def test_docstring_example_feed_forward(sub, ref):
    """文档里的例子：FeedForward 的输出形状 / the docstring's example: FeedForward's output shape"""
    expect_example_values(sub, ref, FFWD_EXAMPLE, "FeedForward", dict(n_embd=8), ffwd_state(8, seed=8), (2, 3, 8))


@pytest.mark.points(1)
def test_docstring_example_block(sub, ref):
    """文档里的例子：Block 的输出形状 / the docstring's example: Block's output shape"""
    expect_example_values(sub, ref, BLOCK_EXAMPLE, "Block", dict(n_embd=8, n_head=2, block_size=4), block_state(8, seed=9), (2, 3, 8), standins=BLOCK_STANDINS)


def expect_example_values(sub, ref, example: str, cls: str, init: dict, state: dict, shape: tuple, standins: tuple = ()) -> None:
    """The docstring's example as written, then its module with the contract's
    weights loaded (in the same round trip): the values, not only the shape."""
    x = randn(*shape, seed=10)
    args = ", ".join(f"{k}={v}" for k, v in init.items())
    ((got, want),) = expect_example(sub, ref, example, also=[(cls, dict(init=init, state=state, inputs=[x], standins=standins))])
    expect_close(
        got.outs[0],
        want.outs[0],
        what=t(f"文档里例子的 {cls}({args})，装上评分程序的权重，x 形状 {shape}", f"the docstring's {cls}({args}) with the grader's weights loaded, on x of shape {shape}"),
    )
