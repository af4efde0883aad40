"""ex7_gpt: hidden checks (graded with the stand-in Block, like the public ones)."""

import pytest
import torch

from grader.authoring.checking import caused_by, expect, expect_close, expect_grads, expect_parts, expect_tokens, fmt, pick, randint, randn, t
from grader.authoring.contract import (
    GPT_STANDINS,
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
from grader.authoring.domain_checks import expect_module, unpack
from grader.authoring.upstream import forward_behind_generate, generated_windows

V, N_EMBD, N_HEAD, N_LAYER, BLOCK = 9, 10, 2, 3, 6
INIT = [V, N_EMBD, N_HEAD, N_LAYER, BLOCK]  # GPT(vocab_size, n_embd, n_head, n_layer, block_size)
GPT_NAME = f"GPT({V}, {N_EMBD}, {N_HEAD}, {N_LAYER}, {BLOCK})"


def forward(endpoint, state, inputs, **kwargs):
    return endpoint.module("GPT", init=INIT, state=state, inputs=inputs, standins=GPT_STANDINS, tuple_out=True, **kwargs)


def generate(endpoint, state, idx, max_new_tokens, **kwargs):
    return endpoint.module("GPT", init=INIT, state=state, inputs=[[idx, max_new_tokens]], standins=GPT_STANDINS, method="generate", **kwargs).outs[0]


@pytest.mark.points(1)
def test_position_embeddings_matter(sub, ref):
    """位置嵌入：同一个字在不同位置得到不同的 logits / position embeddings: the same token at different positions gets other logits"""
    T = pick(121, 5, 4, 6)
    token = int(randint(BLOCK, 1, seed=122))  # below block_size: a lookup of positions by token id does not fail
    state, idx = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=123), torch.full((2, T), token)
    what = t(f"{GPT_NAME}，idx 的每个位置都是字 {token}，形状 (2, {T})", f"{GPT_NAME} on idx of shape (2, {T}) holding token {token} everywhere")
    logits, _ = logits_and_loss(forward(sub, state, [idx]).outs[0], what)
    expect(
        logits.dim() != 3 or logits.shape[1] < 2 or not torch.allclose(logits, logits[:, :1].expand_as(logits), atol=1e-5),
        what,
        fmt(logits[0]),
        t("各个位置的 logits 不一样", "other logits at each position").inline(),
        t(
            "同一个字在每个位置的 logits 都一样：没有东西区分位置。位置嵌入要按位置查，position_embedding_table(torch.arange(T))。",
            "The same token gets the same logits at every position: nothing tells the positions apart. Look the position embeddings up by position, position_embedding_table(torch.arange(T)).",
        ),
    )
    expect_close(
        logits,
        forward(ref, state, [idx]).outs[0][0],
        what=what,
        diagnoses=lambda: [
            (
                gpt_by_hand(state, idx, "no_position"),
                t(
                    "没有位置嵌入：要把 position_embedding_table(torch.arange(T)) 加到词嵌入上。",
                    "There is no position embedding: add position_embedding_table(torch.arange(T)) to the token embeddings.",
                ),
            ),
            (
                gpt_by_hand(state, idx, "position_from_idx"),
                t("位置嵌入是用字的编号 idx 查的：要用位置 torch.arange(T)。", "The position embeddings are looked up with the token ids idx: look them up with the positions, torch.arange(T)."),
            ),
        ],
    )


@pytest.mark.points(1)
def test_gpt_does_not_see_the_future(sub, ref):
    """GPT 不看未来：改后面的字，前面的 logits 不变 / the GPT does not see the future: later tokens never change earlier logits"""
    T, cut = 6, pick(124, 4, 2, 3, 5)
    state, idx = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=125), randint(V, 2, T, seed=126)
    changed = idx.clone()
    changed[:, cut:] = (idx[:, cut:] + 1 + randint(V - 1, 2, T - cut, seed=127)) % V  # every later token another one
    what = t(f"{GPT_NAME}，idx 形状 (2, {T})", f"{GPT_NAME} on idx of shape (2, {T})")
    a, b = (logits_and_loss(out, what)[0] for out in forward(sub, state, [idx, changed]).outs)
    expect_close(a, forward(ref, state, [idx]).outs[0][0], what=what)
    expect(
        a.shape != b.shape or torch.allclose(a[:, :cut], b[:, :cut], atol=1e-5),
        t(f"只改动位置 {cut} 及以后的字之后，位置 0..{cut - 1} 的 logits", f"logits at positions 0..{cut - 1} after changing only the tokens from position {cut} on"),
        t("变了", "they changed").inline(),
        t("不变", "unchanged").inline(),
        t(
            "前面位置的 logits 随后面的字变了：替身 Block 不看未来，所以是 GPT 自己的计算跨了时间。",
            "Earlier logits changed with later tokens: the stand-in blocks never look ahead, so the GPT's own code mixes positions.",
        ),
        diagnosed=True,
    )


@pytest.mark.points(1)
def test_full_block_and_one_position(sub, ref):
    """T = block_size 和 T = 1，带 targets / T = block_size and T = 1, with targets"""
    state = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=128)
    full, full_targets = randint(V, 2, BLOCK, seed=129), randint(V, 2, BLOCK, seed=130)
    one, one_targets = randint(V, 3, 1, seed=131), randint(V, 3, 1, seed=132)
    got = forward(sub, state, [[full, full_targets], [one, one_targets]]).outs
    want = forward(ref, state, [[full, full_targets], [one, one_targets]]).outs
    for (g, w), (idx, shape) in zip(zip(got, want), [(full, (2, BLOCK)), (one, (3, 1))]):
        what = t(f"{GPT_NAME}，idx 和 targets 形状 {shape}", f"{GPT_NAME} on idx and targets of shape {shape}")
        logits, loss = logits_and_loss(g, what)
        expect_close(logits, w[0], what=what)
        expect(loss is not None, what, "loss = None", t("一个数 / a number", "a number").inline(), t("有 targets 时要算 loss。", "With targets, forward computes the loss."), diagnosed=True)
        expect_close(loss, w[1], what=t(what.zh + "（loss）", what.en + " (the loss)"))
    # Training back-propagates the loss (tox -e write does): with targets,
    # the gradients through the loss and through the logits are the reference's.
    runs = [dict(init=INIT, state=state, inputs=[[full, full_targets]], standins=GPT_STANDINS, tuple_out=True, backward=True, backward_through=through) for through in (1, 0)]
    for name, got, want in zip(("loss", "logits"), sub.modules("GPT", runs), ref.modules("GPT", runs)):
        what = t(f"{GPT_NAME}，带 targets，对 {name} 做 backward", f"{GPT_NAME} with targets, backward through the {name}")
        expect_grads(unpack(got), unpack(want), what=what)


@pytest.mark.points(2)
def test_gpt_gradients(sub, ref):
    """梯度传到 GPT 的每个参数 / gradients reach every parameter of the GPT"""
    gpt_sweep(sub, ref)


def gpt_sweep(sub, ref):
    """The GPT's domain, in one round trip."""
    state = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=133)
    # Every parameter's gradient (both embedding tables, blocks, ln_f,
    # lm_head) on every draw of the domain (T from 1 to block_size, every layout of idx), in
    # train mode too: the contract gives GPT no dropout of its own (its
    # Blocks get the rate), and the stand-in Blocks drop nothing, so train
    # mode computes what eval mode does.
    expect_module(sub, ref, "GPT", seed=134, init=[*INIT, 0.25], state=state, default_init=INIT, exact_in_train=True, standins=GPT_STANDINS, tuple_out=True, block_size=BLOCK, vocab_size=V)


@pytest.mark.points(1)
def test_dropout_passed_on_and_off_in_eval(sub, ref):
    """dropout 传给每个 Block；eval 模式下没有 dropout / dropout is passed on to every Block; none in eval mode"""
    init = [*INIT, 0.25]
    state, idx = gpt_state(V, N_EMBD, N_LAYER, BLOCK, seed=135), randint(V, 2, 5, seed=136)
    what = t(f"GPT({V}, {N_EMBD}, {N_HEAD}, {N_LAYER}, {BLOCK}, dropout=0.25)，eval 模式", f"GPT({V}, {N_EMBD}, {N_HEAD}, {N_LAYER}, {BLOCK}, dropout=0.25) in eval mode")
    got = sub.module("GPT", init=init, state=state, inputs=[idx], standins=GPT_STANDINS, tuple_out=True)
    want = ref.module("GPT", init=init, state=state, inputs=[idx], standins=GPT_STANDINS, tuple_out=True)
    expect_parts(got, want, what)
    expect_close(logits_and_loss(got.outs[0], what)[0], want.outs[0][0], what=what)


def crop_diagnoses(state, idx, new):
    return [
        (
            generate_by_hand(state, idx, new, crop="first"),
            t("裁剪留下的是前 block_size 个字：要留最后 block_size 个，idx[:, -block_size:]。", "The crop keeps the first block_size tokens: keep the last block_size, idx[:, -block_size:]."),
        ),
        (
            generate_by_hand(state, idx, new, keep=BLOCK - 1),
            t("裁剪后留下的比 block_size 少一个字：模型要看最后整整 block_size 个字。", "The crop keeps one token fewer than block_size: the model sees the last block_size tokens, all of them."),
        ),
        (
            generate_by_hand(state, idx, new, keep=1),
            t("只把最后一个字交给了模型：它要看最后 block_size 个字，不只是最后一个。", "Only the last token is given to the model: it sees the last block_size tokens, not the last one alone."),
        ),
    ]


@pytest.mark.points(1)
def test_generate_crops_a_long_idx(sub, ref):
    """idx 比 block_size 长：只看最后 block_size 个字 / idx longer than block_size: only the last block_size tokens count"""
    extra, new = pick(137, 3, 2, 4), 4
    T = BLOCK + extra
    successor = cycle(randn(V, seed=138).argsort())
    state = successor_state(V, N_EMBD, N_LAYER, BLOCK, successor, seed=139)
    idx = randint(V, 2, T, seed=140)
    what = t(f"generate(idx, {new})，idx 形状 (2, {T})，比 block_size = {BLOCK} 长", f"generate(idx, {new}), idx of shape (2, {T}), longer than block_size = {BLOCK}")
    want = generate(ref, state, idx, new)
    # A wrong forward makes generate write other text: then forward is what to fix, and no mistake of generate's is named.
    with caused_by(lambda: forward_behind_generate(sub, INIT, state, generated_windows(want, T, BLOCK))):
        expect_tokens(generate(sub, state, idx, new), want, what=what, diagnoses=lambda: crop_diagnoses(state, idx, new))
    # The next token follows the first token the model is given: a window one
    # token short, the last token alone or the first block_size tokens all
    # write other text than the last block_size tokens.
    window, long_idx = window_state(V, N_EMBD, N_LAYER, BLOCK, successor), distinct_contexts(V, 2, T, seed=141)
    what = t(
        f"generate(idx, {new})，idx 形状 (2, {T})，比 block_size = {BLOCK} 长；模型写的下一个字只取决于交给它的第一个字",
        f"generate(idx, {new}), idx of shape (2, {T}), longer than block_size = {BLOCK}, with a model whose next token follows the first token it is given",
    )
    want = generate(ref, window, long_idx, new)
    with caused_by(lambda: forward_behind_generate(sub, INIT, window, generated_windows(want, T, BLOCK))):
        expect_tokens(generate(sub, window, long_idx, new), want, what=what, diagnoses=lambda: crop_diagnoses(window, long_idx, new))


@pytest.mark.points(1)
def test_generate_samples_with_multinomial(sub, ref):
    """按 softmax 的概率抽样，两步，越过 block_size / drawing from the softmax, two steps, past block_size

    Judged by what is drawn, not by which random numbers are used: any right
    sampler passes. A model whose next token after t has known probabilities,
    proportional to 0.6 ** rank (0.40, 0.24, 0.15, 0.09, ...), ranked
    differently after each token; 8000 rows (two contexts of block_size
    tokens, 4000 rows each) write two tokens in one call, with the global
    generator seeded. Each step's counts, grouped by the distribution each row
    draws from given its own history, must lie within Chernoff bounds that a
    right sampler breaks with probability at most 1e-6 in all
    (grader.authoring.checking.draw_violations). A temperature of 0.7 or 1.5, top-k,
    top-p, argmax, the logits without softmax or the first position's logits
    pass with probability below 1e-12 (tests/unit/test_sampling_check.py)."""
    rows_each, new = 4000, 2
    state = sampling_state(V, N_EMBD, N_LAYER, BLOCK, sampling_logits(V, seed=142))
    idx = sampling_contexts(V, BLOCK, 2, rows_each, seed=143)
    draw_seed = int(randint(1 << 20, 1, seed=146))
    what = t(
        f"generate(idx, {new})，idx 形状 ({2 * rows_each}, {BLOCK})：两种上文各 {rows_each} 行；一个 {GPT_NAME}，字 t 后面每个字的概率已知（按 0.6 的幂，最大的 0.40），数每一步每个新字被抽到几次",
        f"generate(idx, {new}), idx of shape ({2 * rows_each}, {BLOCK}): two contexts, {rows_each} rows each, with a {GPT_NAME} whose probabilities of each next token after t are known (powers of 0.6, the largest 0.40); counting how often each new token is drawn at each step",
    )
    with caused_by(lambda: forward_behind_generate(sub, INIT, state, [idx[:, -BLOCK:]])):
        expect_sampling(sub, INIT, state, idx, new, draw_seed, what)
