"""ex7_gpt: public checks.

ex7 is graded with the grader's stand-in Block (grader/child/standins.py) in place
of yours, so a mistake in ex6 never costs points twice. The stand-in is
swapped in when your code calls ``Block(...)``, whether Block comes from
ex6_block or from this file, and it notes the arguments your code passes it:
those must be the contract's, ``Block(n_embd, n_head, block_size, dropout)``.
The GPT is built as a model builds it, with positional arguments in the
contract's order: ``GPT(vocab_size, n_embd, n_head, n_layer, block_size)``.

generate's cropping and its use of the last position are checked on models
whose next token is certain (each softmax is one-hot), so any way of drawing
writes the same text there: one whose next token follows the last token, and
one whose next token follows the first token of the context it is given, so
that how much of idx is kept shows. How it draws is judged by what it draws: many rows
draw a token each from a known, uneven softmax, and each token's count must be
what that softmax allows (grader.authoring.checking.expect_draws: a right sampler, any
right sampler, fails it with probability below one in a million).
"""

import pytest
import torch
import torch.nn.functional as F

from grader.authoring.checking import caused_by, expect, expect_close, expect_parts, expect_tokens, fmt, pick, randint, randn, t
from grader.authoring.contract import (
    GPT_STANDINS,
    bias_only_state,
    cycle,
    distinct_contexts,
    expect_sampling,
    generate_by_hand,
    gpt_by_hand,
    gpt_state,
    logits_and_loss,
    sampling_contexts,
    sampling_logits,
    sampling_state,
    successor_state,
    window_state,
)
from grader.authoring.upstream import forward_behind_generate, generated_windows
from grader.authoring.worked_examples import expect_example

V, N_EMBD, N_HEAD, N_LAYER, BLOCK = 11, 12, 3, 2, 8
INIT = [V, N_EMBD, N_HEAD, N_LAYER, BLOCK]  # GPT(vocab_size, n_embd, n_head, n_layer, block_size)
GPT_NAME = f"GPT({V}, {N_EMBD}, {N_HEAD}, {N_LAYER}, {BLOCK})"


def forward_diagnoses(state, idx):
    out = [
        (
            gpt_by_hand(state, idx, "no_position"),
            t("没有位置嵌入：要把 position_embedding_table(torch.arange(T)) 加到词嵌入上。", "There is no position embedding: add position_embedding_table(torch.arange(T)) to the token embeddings."),
        ),
        (gpt_by_hand(state, idx, "no_ln_f"), t("lm_head 之前少了最后的层归一化：logits = lm_head(ln_f(x))。", "The final layer norm is missing before lm_head: logits = lm_head(ln_f(x)).")),
    ]
    if int(idx.max()) < BLOCK:
        out.append(
            (
                gpt_by_hand(state, idx, "position_from_idx"),
                t("位置嵌入是用字的编号 idx 查的：要用位置 torch.arange(T)。", "The position embeddings are looked up with the token ids idx: look them up with the positions, torch.arange(T)."),
            )
        )
    return out


CROP_TOO_SHORT = t("裁剪后留下的比 block_size 少一个字：模型要看最后整整 block_size 个字。", "The crop keeps one token fewer than block_size: the model sees the last block_size tokens, all of them.")
LAST_TOKEN_ONLY = t("只把最后一个字交给了模型：它要看最后 block_size 个字，不只是最后一个。", "Only the last token is given to the model: it sees the last block_size tokens, not the last one alone.")


def generate_diagnoses(state, idx, max_new_tokens):
    return [
        (
            generate_by_hand(state, idx, max_new_tokens, position=0),
            t(
                "用的是第一个位置的 logits：下一个字要看最后一个位置，logits[:, -1, :]。",
                "This samples from the first position's logits: the next token comes from the last position, logits[:, -1, :].",
            ),
        ),
        (
            generate_by_hand(state, idx, max_new_tokens, crop="first"),
            t("裁剪留下的是前 block_size 个字：要留最后 block_size 个，idx[:, -block_size:]。", "The crop keeps the first block_size tokens: keep the last block_size, idx[:, -block_size:]."),
        ),
        (generate_by_hand(state, idx, max_new_tokens, keep=BLOCK - 1), CROP_TOO_SHORT),
        (generate_by_hand(state, idx, max_new_tokens, keep=1), LAST_TOKEN_ONLY),
    ]


@pytest.mark.points(1)
def test_logits(sub, ref):
    """logits：每个位置对下一个字的打分 / the logits: each position's scores for the next token"""
    T = pick(101, 5, 3, 4, 6, 7)
    state, idx = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=102), randint(V, 2, T, seed=103)
    what = t(f"{GPT_NAME}，idx 形状 (2, {T})，没有 targets（blocks 是评分程序的替身）", f"{GPT_NAME} on idx of shape (2, {T}), no targets (with the grader's stand-in blocks)")
    got = sub.module("GPT", init=INIT, state=state, inputs=[idx], standins=GPT_STANDINS, tuple_out=True)
    want = ref.module("GPT", init=INIT, state=state, inputs=[idx], standins=GPT_STANDINS, tuple_out=True)
    expect_parts(got, want, what)
    logits, loss = logits_and_loss(got.outs[0], what)
    expect_close(logits, want.outs[0][0], what=what, diagnoses=lambda: forward_diagnoses(state, idx))
    expect(
        loss is None,
        what,
        t(f"loss = {fmt(loss)}", f"loss = {fmt(loss)}").inline(),
        "loss = None",
        t("没有 targets 时，forward 返回 (logits, None)。", "Without targets forward returns (logits, None)."),
        diagnosed=True,
    )


@pytest.mark.points(2)
def test_loss_over_every_position(sub, ref):
    """loss：所有位置的交叉熵的平均 / the loss: cross-entropy averaged over every position"""
    T = pick(104, 6, 4, 5, 7)
    state = bias_only_state(V, N_EMBD, N_LAYER, BLOCK, seed=105)
    idx, targets = randint(V, 3, T, seed=106), randint(V, 3, T, seed=107)
    what = t(
        f"{GPT_NAME}，idx 和 targets 形状 (3, {T})；lm_head 的权重是 0，所以每个位置的 logits 都是 lm_head 的偏置",
        f"{GPT_NAME} on idx and targets of shape (3, {T}); lm_head's weight is 0, so the logits at every position are lm_head's bias",
    )
    got = sub.module("GPT", init=INIT, state=state, inputs=[[idx, targets]], standins=GPT_STANDINS, tuple_out=True)
    want = ref.module("GPT", init=INIT, state=state, inputs=[[idx, targets]], standins=GPT_STANDINS, tuple_out=True)
    logits, loss = logits_and_loss(got.outs[0], what)
    want_logits, want_loss = want.outs[0]
    expect_close(logits, want_logits, what=what)
    expect(loss is not None, what, "loss = None", t("一个数 / a number", "a number").inline(), t("有 targets 时要算 loss。", "With targets, forward computes the loss."), diagnosed=True)
    flat, flat_targets = want_logits.reshape(-1, V), targets.reshape(-1)
    expect_close(
        loss,
        want_loss,
        what=t(what.zh + "（loss）", what.en + " (the loss)"),
        diagnoses=lambda: [
            (
                F.cross_entropy(flat, flat_targets, reduction="sum"),
                t("loss 是总和：cross_entropy 默认对所有位置取平均，不要 reduction='sum'。", "The loss is a sum: cross_entropy averages over every position by default; no reduction='sum'."),
            ),
            (
                F.cross_entropy(want_logits[:, -1, :], targets[:, -1]),
                t(
                    "只算了最后一个位置的 loss：训练时每个位置都预测下一个字，要把 (B, T) 个位置都算进去。",
                    "The loss is the last position's only: in training every position predicts its next token, so all B * T positions count.",
                ),
            ),
            (
                F.cross_entropy(F.softmax(flat, dim=-1), flat_targets),
                t(
                    "交叉熵算在 softmax 之后的概率上：F.cross_entropy 要的是 logits，它自己做 softmax。",
                    "The cross-entropy is taken of probabilities after softmax: F.cross_entropy takes the logits and does the softmax itself.",
                ),
            ),
            (
                F.nll_loss(flat, flat_targets),
                t("用了 nll_loss 却没有 log_softmax：直接用 F.cross_entropy(logits, targets)。", "nll_loss without log_softmax: use F.cross_entropy(logits, targets) directly."),
            ),
        ],
    )


@pytest.mark.points(1)
def test_worked_example_counting(sub, ref):
    """例子：一个会数数的 GPT / worked example: a GPT that counts"""
    # Every token t is followed by t + 1 (after 10 comes 0), for certain.
    state = successor_state(V, N_EMBD, N_LAYER, BLOCK, [(token + 1) % V for token in range(V)])
    idx = torch.tensor([[3, 1, 4], [9, 2, 6]])
    what = t(
        f"generate(idx, 6)，idx = {idx.tolist()}，一个在 t 后面一定写 t + 1 的 {GPT_NAME}（10 后面是 0）",
        f"generate(idx, 6), idx = {idx.tolist()}, with a {GPT_NAME} that always writes t + 1 after t (0 after 10)",
    )
    got = sub.module("GPT", init=INIT, state=state, inputs=[[idx, 6]], standins=GPT_STANDINS, method="generate").outs[0]
    want = ref.module("GPT", init=INIT, state=state, inputs=[[idx, 6]], standins=GPT_STANDINS, method="generate").outs[0]
    # A wrong forward makes generate write other text: then forward is what to fix, and no mistake of generate's is named.
    with caused_by(lambda: forward_behind_generate(sub, INIT, state, generated_windows(want, idx.shape[1], BLOCK))):
        expect_tokens(got, want, what=what, diagnoses=lambda: generate_diagnoses(state, idx, 6))


@pytest.mark.points(1)
def test_generate_continues_from_the_last_position(sub, ref):
    """generate 接着最后一个位置往下写，超过 block_size 时裁剪 / generate continues from the last position, cropping beyond block_size"""
    T, new = pick(108, 4, 3, 5, 6), pick(109, 7, 6, 8, 9)
    successor = cycle(randn(V, seed=110).argsort())
    state = successor_state(V, N_EMBD, N_LAYER, BLOCK, successor, seed=111)
    idx = randint(V, 3, T, seed=112)
    what = t(
        f"generate(idx, {new})，idx 形状 (3, {T})，一个在字 t 后面一定写 successors[t] 的 {GPT_NAME}（successors = {successor}），写到超过 block_size = {BLOCK}",
        f"generate(idx, {new}), idx of shape (3, {T}), with a {GPT_NAME} that always writes successors[t] after the token t (successors = {successor}), past block_size = {BLOCK}",
    )
    got = sub.module("GPT", init=INIT, state=state, inputs=[[idx, new]], standins=GPT_STANDINS, method="generate").outs[0]
    want = ref.module("GPT", init=INIT, state=state, inputs=[[idx, new]], standins=GPT_STANDINS, method="generate").outs[0]
    with caused_by(lambda: forward_behind_generate(sub, INIT, state, generated_windows(want, T, BLOCK))):
        expect_tokens(got, want, what=what, diagnoses=lambda: generate_diagnoses(state, idx, new))
    # A model whose next token depends on the first token it is given: how
    # much of idx generate keeps (the last block_size tokens) shows in its text.
    window = window_state(V, N_EMBD, N_LAYER, BLOCK, successor)
    idx = distinct_contexts(V, 3, T, seed=116)
    what = t(
        f"generate(idx, {new})，idx 形状 (3, {T})，一个 {GPT_NAME}，它写的下一个字是 successors[f]，f 是交给它的上文的第一个字（successors = {successor}），写到超过 block_size = {BLOCK}",
        f"generate(idx, {new}), idx of shape (3, {T}), with a {GPT_NAME} whose next token is successors[f], f the first token of the context it is given (successors = {successor}), past block_size = {BLOCK}",
    )
    got = sub.module("GPT", init=INIT, state=window, inputs=[[idx, new]], standins=GPT_STANDINS, method="generate").outs[0]
    want = ref.module("GPT", init=INIT, state=window, inputs=[[idx, new]], standins=GPT_STANDINS, method="generate").outs[0]
    with caused_by(lambda: forward_behind_generate(sub, INIT, window, generated_windows(want, T, BLOCK))):
        expect_tokens(got, want, what=what, diagnoses=lambda: generate_diagnoses(window, idx, new))


@pytest.mark.points(1)
def test_generate_draws_from_the_softmax(sub, ref):
    """generate 按最后一个位置的 softmax 抽字 / generate draws from the last position's softmax

    A model whose next token after t has known probabilities, proportional to
    0.6 ** rank (0.40, 0.24, 0.15, 0.09, 0.05, ...), ranked differently after
    each token. 8000 rows, two contexts of 4000 rows each, draw one token in a
    single call, with the global generator seeded (a grading run repeats
    itself). Each token's count in each context must lie within Chernoff
    bounds that a right sampler breaks with probability at most 1e-6 in all
    (grader.authoring.checking.draw_violations says why): multinomial, Categorical,
    Gumbel-max or an inverse CDF all pass. A temperature of 0.7 or 1.5, top-k,
    top-p, argmax, the logits without softmax or the first position's logits
    pass with probability below 1e-12 (tests/unit/test_sampling_check.py computes
    it)."""
    T = pick(113, 3, 2, 4, 5)
    rows_each, new = 4000, 1
    state = sampling_state(V, N_EMBD, N_LAYER, BLOCK, sampling_logits(V, seed=114))
    idx = sampling_contexts(V, T, 2, rows_each, seed=115)
    draw_seed = int(randint(1 << 20, 1, seed=118))
    what = t(
        f"generate(idx, {new})，idx 形状 ({2 * rows_each}, {T})：两种上文各 {rows_each} 行；一个 {GPT_NAME}，字 t 后面每个字的概率已知（按 0.6 的幂，最大的 0.40），数每个新字被抽到几次",
        f"generate(idx, {new}), idx of shape ({2 * rows_each}, {T}): two contexts, {rows_each} rows each, with a {GPT_NAME} whose probabilities of each next token after t are known (powers of 0.6, the largest 0.40); counting how often each new token is drawn",
    )
    with caused_by(lambda: forward_behind_generate(sub, INIT, state, [idx[:, -BLOCK:]])):
        expect_sampling(sub, INIT, state, idx, new, draw_seed, what)


EXAMPLE = """
>>> model = GPT(vocab_size=10, n_embd=8, n_head=2, n_layer=2, block_size=4)
>>> logits, loss = model(torch.zeros(1, 3, dtype=torch.long))
>>> logits.shape, loss
(torch.Size([1, 3, 10]), None)
>>> model.generate(torch.zeros(1, 3, dtype=torch.long), max_new_tokens=5).shape
torch.Size([1, 8])
"""


@pytest.mark.points(1)
def test_docstring_example(sub, ref):
    """文档里的例子：logits 的形状、没有 targets 时 loss 是 None、generate 的形状 / the docstring's example: the shape of the logits, loss None without targets, generate's shape"""
    # The example's model with the contract's weights loaded: the logits, not only their shape.
    init, idx = [10, 8, 2, 2, 4], torch.zeros(1, 3, dtype=torch.long)
    state = gpt_state(10, 8, 2, 4, seed=11)
    ((got, want),) = expect_example(sub, ref, EXAMPLE, also=[("GPT", dict(init=init, state=state, inputs=[idx], standins=GPT_STANDINS, tuple_out=True))])
    what = t("文档里例子的 GPT(10, 8, 2, 2, 4)，装上评分程序的权重，idx 全为 0，形状 (1, 3)", "the docstring's GPT(10, 8, 2, 2, 4) with the grader's weights loaded, on idx of zeros of shape (1, 3)")
    expect_close(logits_and_loss(got.outs[0], what)[0], want.outs[0][0], what=what)
