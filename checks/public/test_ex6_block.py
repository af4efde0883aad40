"""ex6_block: public checks.

ex6 is graded with the grader's stand-ins (grader/standins.py) in place of
your Head, attention and feed-forward layers, so a mistake in ex5 never costs
points here. Build MultiHeadAttention's heads with the ``Head`` imported from
``ex5_head``, and call ``self.sa``, ``self.ffwd``, ``self.ln1``, ``self.ln2``
in Block.forward.
"""
import pytest
import torch

from grader.checking import expect_close, randn, t
from grader.contract import block_standins, block_state, ffwd_state, mha_state

N_EMBD, N_HEAD, BLOCK = 12, 3, 8


@pytest.mark.points(3)
def test_feed_forward(sub, ref):
    """FeedForward 的输出 / the output of FeedForward"""
    init, state, x = dict(n_embd=N_EMBD), ffwd_state(N_EMBD, seed=71), randn(2, 5, N_EMBD, seed=72)
    expect_close(
        sub.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        ref.module("FeedForward", init=init, state=state, inputs=[x]).outs[0],
        what=t(f"FeedForward(n_embd={N_EMBD})，x 形状 (2, 5, {N_EMBD})", f"FeedForward(n_embd={N_EMBD}) on x of shape (2, 5, {N_EMBD})"),
        hint=t(
            "net = Sequential(Linear(n, 4n), ReLU(), Linear(4n, n), Dropout)：中间层宽 4 倍，中间有 ReLU。",
            "net = Sequential(Linear(n, 4n), ReLU(), Linear(4n, n), Dropout): the middle is 4x wide, with a ReLU.",
        ),
    )


@pytest.mark.points(4)
def test_multi_head_attention(sub, ref):
    """多头注意力：拼接各头，再投影 / multi-head attention: concatenate the heads, then project"""
    init = dict(n_embd=N_EMBD, n_head=N_HEAD, block_size=BLOCK)
    state, x = mha_state(N_EMBD, N_HEAD, seed=73), randn(2, 5, N_EMBD, seed=74)
    expect_close(
        sub.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        ref.module("MultiHeadAttention", init=init, state=state, inputs=[x]).outs[0],
        what=t(
            f"MultiHeadAttention(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK})（用评分程序的替身 Head）",
            f"MultiHeadAttention(n_embd={N_EMBD}, n_head={N_HEAD}, block_size={BLOCK}) (with the grader's stand-in Head)",
        ),
        hint=t(
            "每个头的 head_size = n_embd // n_head；按顺序在最后一维拼接（dim=-1），再 proj，再 dropout。",
            "Each head has head_size = n_embd // n_head; concatenate them in order on the last dim (dim=-1), then proj, then dropout.",
        ),
    )


@pytest.mark.points(4)
def test_block_pre_norm_residuals(sub, ref):
    """GPT 块：前置层归一化与残差 / the GPT block: pre-norm and residuals"""
    init = dict(n_embd=N_EMBD, n_head=N_HEAD, block_size=BLOCK)
    state, x = block_state(N_EMBD, seed=75), randn(2, 5, N_EMBD, seed=76)
    expect_close(
        sub.module("Block", init=init, state=state, inputs=[x], replace=block_standins(N_EMBD)).outs[0],
        ref.module("Block", init=init, state=state, inputs=[x], replace=block_standins(N_EMBD)).outs[0],
        what=t(
            "Block 的输出（sa 和 ffwd 换成评分程序的替身）",
            "Block's output (with sa and ffwd replaced by the grader's stand-ins)",
        ),
        hint=t(
            "前置归一化：x = x + sa(ln1(x))；x = x + ffwd(ln2(x))。不是 ln1(x + sa(x))（后置），也不要漏掉残差。",
            "Pre-norm: x = x + sa(ln1(x)); x = x + ffwd(ln2(x)). Not ln1(x + sa(x)) (post-norm), and keep both residuals.",
        ),
    )


@pytest.mark.points(1)
def test_block_short_sequence(sub, ref):
    """T = 1 时的 Block / the Block with T = 1"""
    init = dict(n_embd=N_EMBD, n_head=N_HEAD, block_size=BLOCK)
    state, x = block_state(N_EMBD, seed=77), randn(3, 1, N_EMBD, seed=78)
    expect_close(
        sub.module("Block", init=init, state=state, inputs=[x], replace=block_standins(N_EMBD)).outs[0],
        ref.module("Block", init=init, state=state, inputs=[x], replace=block_standins(N_EMBD)).outs[0],
        what=t(f"x 形状 (3, 1, {N_EMBD})", f"x of shape (3, 1, {N_EMBD})"),
    )
