"""ex4_masking: hidden checks."""

import pytest
import torch

from grader.authoring.checking import caused_by, expect, expect_close, fmt, pick, randn, t
from grader.authoring.domain_checks import expect_function
from grader.authoring.upstream import drawn, mask_behind_weights


@pytest.mark.points(1)
def test_mask_keeps_the_past_in_batches(sub, ref):
    """过去的分数原样保留，任意批维度和内存布局 / the past is kept exactly, with any batch dims and memory layout"""
    expect_function(sub, ref, "causal_mask", seed=45, atol=0, rtol=0, backward=True)


@pytest.mark.points(1)
def test_single_position(sub, ref):
    """T = 1：唯一的权重是 1 / T = 1: the only weight is 1"""
    for shape, seed in (((3, 1, 1), 46), ((3, 4, 4), 47)):
        scores = randn(*shape, seed=seed)
        got = sub.causal_weights(scores)
        expect(
            tuple(got.shape) != shape or not bool(torch.isnan(got[..., 0, :]).all()),
            t(f"causal_weights，scores 形状 {shape}：第一行", f"causal_weights with scores of shape {shape}: the first row"),
            fmt(got),
            t("位置 0 的权重 1", "weight 1 on position 0").inline(),
            t(
                "第一行全是 NaN：它的每个分数都被遮住了。位置 i 总能看见自己，对角线不能遮。",
                "The first row is all NaN: every score in it was masked. Position i always sees itself: never mask the diagonal.",
            ),
            diagnosed=True,
        )
        # A first row of NaN says what it says whichever function masked; a wrong causal_mask underneath is what to fix otherwise.
        with caused_by(lambda: mask_behind_weights(sub, [scores])):
            expect_close(got, ref.causal_weights(scores), what=t(f"causal_weights，scores 形状 {shape}", f"causal_weights with scores of shape {shape}"))


@pytest.mark.points(1)
def test_input_left_unchanged(sub, ref):
    """返回新张量，不改动传进来的分数，T 的每个边界都一样 / a new tensor, the scores passed in left unchanged, at every edge of T"""
    # T = 1 (nothing to mask: the input itself would pass for the answer) and
    # T longer than 8, as the docstring promises, besides an ordinary T.
    long = pick(53, 11, 9, 12, 13)
    for shape, seed in (((2, 4, 4), 48), ((3, 1, 1), 54), ((1, long, long), 55)):
        T = shape[-1]
        scores = randn(*shape, seed=seed)
        got, (after,), (shared,) = sub.call_watching_args("causal_mask", scores)
        what = t(f"调用 causal_mask 之后，传进去的 scores（形状 {shape}）", f"the scores passed in (shape {shape}), after causal_mask returns")
        expect(
            torch.equal(after, scores),
            what,
            fmt(after[0]),
            fmt(scores[0]),
            t(
                "传进去的分数被改动了：用 masked_fill（返回新张量），不要用 masked_fill_ 或 scores[...] = ...（原地修改）。",
                "The scores passed in were changed: use masked_fill (returns a new tensor), not masked_fill_ or scores[...] = ... (in place).",
            )
            if T > 1
            else t("传进去的分数被改动了：T = 1 时也不能原地修改，要返回一个新张量。", "The scores passed in were changed: at T = 1 too, nothing is modified in place; return a new tensor."),
            diagnosed=True,
        )
        expect(
            not shared,
            t(f"causal_mask(scores) 的结果，scores 形状 {shape}", f"the result of causal_mask(scores), scores of shape {shape}"),
            t("就是传进去的 scores（或它的视图，共用同一块内存）", "the scores passed in themselves (or a view of them, sharing their memory)").inline(),
            t("一个新张量", "a new tensor").inline(),
            t(
                f"返回的是传进来的张量本身（或共用内存的视图）：T = {T} 时也要返回一个新张量，否则调用者改动结果就改动了自己的 scores。",
                f"The result is the tensor passed in (or a view sharing its memory): at T = {T} too the result is a new tensor, or a caller who changes the result changes their own scores.",
            ),
            diagnosed=True,
        )
        expect_close(got, ref.causal_mask(scores), what=t(f"causal_mask(scores)，scores 形状 {shape}", f"causal_mask(scores) with scores of shape {shape}"))


@pytest.mark.points(1)
def test_float64(sub, ref):
    """float64 进，float64 出 / float64 in, float64 out"""
    with caused_by(lambda: mask_behind_weights(sub, drawn("causal_weights", 49, None, dtype=torch.float64))):
        expect_function(sub, ref, "causal_weights", seed=49, dtype=torch.float64)
    expect_function(sub, ref, "causal_mask", seed=56, dtype=torch.float64)


@pytest.mark.points(1)
def test_longer_sequence(sub, ref):
    """比 8 更长的序列，以及定义域里的其他大小和内存布局 / a sequence longer than 8, and the domain's other sizes and layouts"""
    with caused_by(lambda: mask_behind_weights(sub, drawn("causal_weights", 51))):
        expect_function(sub, ref, "causal_weights", seed=51, backward=True)


@pytest.mark.points(1)
def test_huge_future_scores(sub, ref):
    """未来的分数再大也没有权重 / huge future scores still get no weight"""
    # Whole numbers in the past, several of them 0: a zero score is a score like any other.
    past = torch.tril((2 * randn(1, 4, 4, seed=52)).round())
    past[0, 2, 1] = past[0, 3, 3] = 0.0
    scores = past + torch.triu(torch.full((1, 4, 4), 1e4), diagonal=1)
    w = sub.causal_weights(scores)
    # A wrong causal_mask underneath (not a mask filled with a large negative number) is what to fix.
    with caused_by(lambda: mask_behind_weights(sub, [scores])):
        expect(
            tuple(w.shape) != (1, 4, 4) or (bool(torch.isfinite(w).all()) and bool((w[0].triu(1) == 0).all())),
            t("过去的分数是整数（有的是 0），未来的分数是 10000 时的权重", "the weights when the past scores are whole numbers (some 0) and every future score is 10000"),
            fmt(w),
            t("未来位置权重为 0，没有 NaN", "zero weight on the future, no NaN").inline(),
            t("未来得到了权重（或出现了 NaN）：分数 10000 要被替换成 -inf，而不是加上一个负数。", "The future got weight (or NaN came out): a score of 10000 must be replaced by -inf, not added to."),
            diagnosed=True,
        )
        expect_close(
            w,
            ref.causal_weights(scores),
            what=t("过去的分数是整数（有的是 0），未来的分数是 10000 时的权重", "the weights when the past scores are whole numbers (some 0) and every future score is 10000"),
        )
