"""ex5_head: hidden checks."""
import pytest
import torch

from grader.checking import expect, expect_close, fmt, randn, t
from grader.contract import head_state


@pytest.mark.points(3)
def test_head_wider_than_input(sub, ref):
    """head_size 大于 n_embd / head_size larger than n_embd"""
    init = dict(n_embd=6, head_size=10, block_size=16)
    state, x = head_state(6, 10, seed=61), randn(4, 7, 6, seed=62)
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x]).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x]).outs[0],
        what=t("Head(n_embd=6, head_size=10, block_size=16)，x 形状 (4, 7, 6)", "Head(n_embd=6, head_size=10, block_size=16) on x of shape (4, 7, 6)"),
        hint=t(
            "缩放用 head_size（k.shape[-1]），不是 n_embd（x.shape[-1]）；加权求和用 v，不是 x。",
            "Scale by head_size (k.shape[-1]), not n_embd (x.shape[-1]); sum the values v, not x.",
        ),
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
        hint=t(
            "用 nn.Dropout 模块（它在 eval 模式自动关闭），不要用 F.dropout(..., training=True)。",
            "Use an nn.Dropout module (it switches off in eval mode), not F.dropout(..., training=True).",
        ),
    )


@pytest.mark.points(2)
def test_dropout_on_the_weights(sub):
    """训练时 dropout 作用在注意力权重上 / in training, dropout acts on the attention weights"""
    init = dict(n_embd=8, head_size=4, block_size=8, dropout=0.5)
    state, x = head_state(8, 4, seed=65), randn(32, 3, 8, seed=66)
    out = sub.module("Head", init=init, state=state, inputs=[x], train=True).outs[0]
    v0 = x[:, 0] @ state["value.weight"].T  # (B, hs): position 0 can only attend to itself
    expect(tuple(out.shape) == (32, 3, 4), t("输出形状", "the output shape"), str(tuple(out.shape)), "(32, 3, 4)")
    row = out[:, 0]
    dropped = torch.isclose(row, torch.zeros_like(row), atol=1e-5).all(-1)
    kept = torch.isclose(row, 2 * v0, atol=1e-4).all(-1)
    expect(
        bool((dropped | kept).all()) and bool(dropped.any()) and bool(kept.any()),
        t(
            "训练模式、dropout=0.5：位置 0 只看自己，它的权重 1 要么被丢弃（输出全 0），要么变成 2（输出 2·v₀）",
            "train mode, dropout=0.5: position 0 sees only itself, so its weight 1 is either dropped (output all 0) or becomes 2 (output 2·v₀)",
        ),
        fmt(row[:4]),
        t("每行要么全 0，要么等于 2·v₀", "each row either all 0 or exactly 2·v₀").inline(),
        t(
            "dropout 要作用在 softmax 之后的权重 wei 上，而不是输出或 v 上；训练模式下要真的生效。",
            "Apply dropout to the weights wei after softmax, not to the output or to v; it must act in train mode.",
        ),
    )


@pytest.mark.points(2)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    init = dict(n_embd=5, head_size=3, block_size=4)
    state, x = head_state(5, 3, seed=67, dtype=torch.float64), randn(2, 4, 5, seed=68, dtype=torch.float64)
    expect_close(
        sub.module("Head", init=init, state=state, inputs=[x], dtype=torch.float64).outs[0],
        ref.module("Head", init=init, state=state, inputs=[x], dtype=torch.float64).outs[0],
        what=t("整个 Head 转成 float64（module.double()）", "the whole Head in float64 (module.double())"),
        hint=t(
            "不要写死 float32：掩码和常数跟着输入的 dtype 走；tril 作为 buffer 会随模块一起转换。",
            "Do not hard-code float32: build masks and constants in the input's dtype; a tril buffer converts with the module.",
        ),
        atol=1e-10,
        rtol=1e-8,
    )


@pytest.mark.points(1)
def test_input_gradient(sub, ref):
    """梯度也传回输入 x / the gradient flows back to the input x"""
    init = dict(n_embd=6, head_size=3, block_size=5)
    state, x = head_state(6, 3, seed=69), randn(2, 5, 6, seed=70)
    got = sub.module("Head", init=init, state=state, inputs=[x], backward=True).input_grad
    want = ref.module("Head", init=init, state=state, inputs=[x], backward=True).input_grad
    expect(got is not None, t("x 的梯度", "the gradient of x"), "None", t("一个张量", "a tensor").inline(), t("不要 detach 输入或中间结果。", "Do not detach the input or anything computed from it."))
    expect_close(got, want, what=t("x 的梯度", "the gradient of x"), atol=1e-4, rtol=1e-3)
