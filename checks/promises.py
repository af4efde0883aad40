"""What each hidden check tests, and where the student was told so.

A hidden check may only test what the student was promised: every check in
``checks/hidden/`` has an entry here, keyed by exercise and check, that quotes
the sentence (Chinese and English) of the exercise file's docstrings that
promises what it tests, and names the public checks, if any, that test the
same rule in the student's own run (``tox -e grade``). A formula or a code
line of a docstring is the same in both languages.

``tests/unit/test_promises.py`` holds this table to the checks and to the stubs:
every hidden check has an entry and every entry a hidden check (a check
renamed, added or dropped fails the test until its entry follows), each quote
is found in the docstring it names in ``exercises/`` (white space aside), and
each public check named exists. The teachers' guide shows the table
(``docs/teachers/promises.md``, teacher edition only).

Teacher only: it names the hidden checks, so the student release leaves it
out (``grader/teacher/edition/release.py`` copies ``checks/public`` alone).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Promise:
    where: str  # the docstring: "" for the module's, else "function", "Class" or "Class.method"
    zh: str  # quoted from that docstring, white space aside
    en: str


@dataclass(frozen=True)
class Entry:
    promises: tuple[Promise, ...]
    public: tuple[str, ...] = ()  # public checks of the same exercise that test the same rule


def _p(where: str, zh: str, en: str | None = None) -> Promise:
    return Promise(where, zh, zh if en is None else en)


def _e(*promises: Promise, public: tuple[str, ...] = ()) -> Entry:
    return Entry(tuple(promises), public)


DTYPE_EX0 = _p("weighted_sum", "返回值的 dtype 与输入相同：float64 进，float64 出。", "The result has the inputs' dtype: float64 in, float64 out.")
HEAD_DTYPE = _p("Head", "``head.double()`` 之后，float64 的 x 得到 float64 的输出。", "After ``head.double()``, a float64 x gives a float64 output.")
EVAL_MHA = _p("MultiHeadAttention", "eval 模式下没有 dropout。", "In eval mode there is no dropout.")
MHA_FORMULA = _p("MultiHeadAttention", "out = dropout(proj(concat([h(x) for h in heads], dim=-1)))")
FFWD_NET = _p("FeedForward", "``net`` = ``nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))``")
BLOCK_FORMULA = _p("Block", "x = x + sa(ln1(x)) x = x + ffwd(ln2(x))")
GPT_FORMULA = _p("GPT", "x = token_embedding_table(idx) + position_embedding_table(arange(T)) logits = lm_head(ln_f(blocks(x)))")

HIDDEN: dict[str, dict[str, Entry]] = {
    "ex0_weighted_sum": {
        "test_large_scores_do_not_overflow": _e(
            _p("weighted_sum", "分数可以很大（比如 1000），结果仍是有限的数。", "Scores may be large (say 1000): the result is still finite."),
        ),
        "test_float64": _e(DTYPE_EX0, public=("test_keeps_the_dtype",)),
        "test_more_batch_dims_and_one_position": _e(
            _p("weighted_sum", "``...`` 是任意多个批维度，也可以没有；T 可以是 1。", "``...`` stands for any number of batch dims, none included; T may be 1."),
            public=("test_batch_dims_none_or_two",),
        ),
    },
    "ex1_averaging": {
        "test_matrix_is_float_and_size_one": _e(
            _p("averaging_matrix", "返回 (T, T) 的浮点矩阵", "Return a (T, T) float matrix"),
            _p("averaging_matrix", "任何浮点类型都可以（float32 或 float64）；T 可以是 1。", "Any float dtype will do (float32 or float64); T may be 1."),
        ),
        "test_average_past_ignores_the_future": _e(
            _p("average_past", "位置 t 的输出是位置 0..t 的平均", "Position t of the output is the mean of positions 0..t of ``x``"),
        ),
        "test_average_past_float64": _e(
            _p("average_past", "返回值的 dtype 与 x 相同：float64 进，float64 出", "The result has x's dtype: float64 in, float64 out"),
            public=("test_average_past_keeps_the_dtype",),
        ),
        "test_average_past_other_sizes": _e(
            _p("average_past", "梯度能穿过它传回 x（不要 detach）。", "Gradients flow through it back to x (no detach)."),
            _p("average_past", "T 可以是任意正整数，1 也行。", "T may be any size, 1 included."),
        ),
    },
    "ex2_scores": {
        "test_batches_stay_apart": _e(
            _p("attention_scores", "结果 [b, i, j] = q[b, i] · k[b, j]。", "entry [b, i, j] = q[b, i] . k[b, j]."),
        ),
        "test_single_position": _e(_p("attention_scores", "B、T、hs 可以是任意正整数，1 也行。", "B, T and hs may be any sizes, 1 included.")),
        "test_float64": _e(
            _p("attention_scores", "返回值的 dtype 与 q、k 相同：float64 进，float64 出。", "The result has the dtype of q and k: float64 in, float64 out."),
            public=("test_keeps_the_dtype",),
        ),
        "test_head_size_one": _e(
            _p("attention_scores", "梯度能穿过它传回 q 和 k（不要 detach）。", "Gradients flow through it back to q and k (no detach)."),
            _p("attention_scores", "B、T、hs 可以是任意正整数，1 也行。", "B, T and hs may be any sizes, 1 included."),
        ),
    },
    "ex3_scaling": {
        "test_input_left_unchanged": _e(
            _p("scale_scores", "返回 scores * head_size ** -0.5，不改动输入。", "Return ``scores * head_size ** -0.5``, leaving the input unchanged."),
            public=("test_leaves_the_scores_alone",),
        ),
        "test_float64": _e(
            _p("scale_scores", "返回值的 dtype 与 scores 相同：float64 进，float64 出。", "The result has the dtype of scores: float64 in, float64 out."),
            public=("test_keeps_the_dtype",),
        ),
        "test_head_size_one_and_four": _e(
            _p("scale_scores", "返回 scores * head_size ** -0.5", "Return ``scores * head_size ** -0.5``"),
            public=("test_example", "test_uses_head_size_not_shape"),
        ),
        "test_any_shape": _e(
            _p("scale_scores", "梯度能穿过它传回 scores（不要 detach）。", "Gradients flow through it back to scores (no detach)."),
            _p("scale_scores", "任意，输出与输入同形", "any; the output has the input's shape."),
        ),
    },
    "ex4_masking": {
        "test_mask_keeps_the_past_in_batches": _e(
            _p("causal_mask", "梯度能穿过它传回 scores（不要 detach）。", "Gradients flow through it back to scores (no detach)."),
            _p("causal_mask", "把对角线以上（j > i）的分数换成 -inf，其余不变", "Replace every score above the diagonal (j > i) by -inf and keep the rest"),
            _p("causal_mask", "``...`` 是任意多个批维度，也可以没有", "``...`` stands for any number of batch dims, none included"),
            public=("test_weights_any_batch_dims",),
        ),
        "test_single_position": _e(
            _p("causal_weights", "每行和为 1，未来位置权重为 0。", "every row adds up to 1 and puts zero weight on the future."),
            _p("causal_mask", "T 可以是任意长度，1 也行，比 8 长也行。", "T may be any length, 1 or longer than 8."),
        ),
        "test_input_left_unchanged": _e(
            _p("causal_mask", "传进来的 scores 保持不变。", "The scores passed in stay as they are."),
            _p("causal_mask", "返回新张量。", "return a new tensor."),
            _p("causal_mask", "T 可以是任意长度，1 也行，比 8 长也行。", "T may be any length, 1 or longer than 8."),
            public=("test_weights_leave_the_scores_alone",),
        ),
        "test_float64": _e(
            _p("causal_mask", "返回值的 dtype 与 scores 相同：float64 进，float64 出。", "The result has the dtype of scores: float64 in, float64 out."),
            _p("causal_weights", "形状、批维度、dtype 和 causal_mask 一样", "Shapes, batch dims and dtype as for causal_mask"),
            public=("test_keeps_the_dtype",),
        ),
        "test_longer_sequence": _e(
            _p("causal_weights", "梯度也像 causal_mask 那样传回 scores。", "Gradients flow through it back to scores, as through causal_mask."),
            _p("causal_mask", "T 可以是任意长度，1 也行，比 8 长也行。", "T may be any length, 1 or longer than 8."),
        ),
        "test_huge_future_scores": _e(
            _p("causal_weights", "未来的分数再大，权重也是 0。", "However large the future's scores, their weight is 0."),
        ),
    },
    "ex5_head": {
        "test_head_wider_than_input": _e(
            _p(
                "Head",
                "未来位置的权重恰好是 0，分数再小（比如 -1e12）也一样：像 causal_mask 那样用 -inf 遮。",
                "The future's weight is exactly 0, however negative the scores are (say -1e12): mask with -inf, as causal_mask does.",
            ),
            _p("Head", "head_size 可以比 n_embd 大。", "head_size may be larger than n_embd."),
            _p("Head", "同一个头要能先后处理不同长度的 T（不超过 block_size）。", "One head must handle inputs of any T up to block_size, one after another."),
            public=("test_one_head_many_lengths",),
        ),
        "test_dropout_off_in_eval": _e(_p("Head", "eval 模式（``head.eval()``）下没有 dropout。", "In eval mode (``head.eval()``) there is no dropout.")),
        "test_dropout_on_the_weights": _e(
            _p("Head", "dropout: 注意力权重上的 dropout 比例", "dropout rate on the weights"),
            _p("Head", "out = dropout(wei) @ v"),
        ),
        "test_float64": _e(HEAD_DTYPE, public=("test_keeps_the_dtype",)),
        "test_input_gradient": _e(
            _p("Head", "同一个头要能先后处理不同长度的 T（不超过 block_size）。", "One head must handle inputs of any T up to block_size, one after another."),
            _p("Head", "dropout: 注意力权重上的 dropout 比例", "dropout rate on the weights"),
            _p("Head", "属性 / Attributes: ``key``, ``query``, ``value`` = ``nn.Linear(n_embd, head_size, bias=False)``."),
            _p("Head", "梯度要传回输入 x。", "The gradient flows back to the input x."),
        ),
    },
    "ex6_block": {
        "test_many_heads": _e(MHA_FORMULA, public=("test_multi_head_attention",)),
        "test_attention_dropout_off_in_eval": _e(
            MHA_FORMULA,
            _p("MultiHeadAttention", "每个头都要拿到这四个参数，按这个顺序，dropout 也要传下去", "Every head gets these four arguments, in this order, dropout included"),
            EVAL_MHA,
        ),
        "test_feed_forward_other_size_and_eval": _e(FFWD_NET, _p("FeedForward", "eval 模式下没有 dropout。", "In eval mode there is no dropout."), public=("test_feed_forward",)),
        "test_block_gradients": _e(BLOCK_FORMULA),
        "test_block_float64": _e(
            _p("Block", "``.double()`` 之后，float64 的 x 得到 float64 的输出。", "After ``.double()``, a float64 x gives a float64 output."),
            public=("test_keeps_the_dtype",),
        ),
        "test_block_does_not_see_the_future": _e(_p("Block", "``ln1``, ``ln2`` (``nn.LayerNorm(n_embd)``)"), BLOCK_FORMULA),
        "test_block_passes_its_arguments_on": _e(
            _p("Block", "Block 把自己的参数原样传给 sa 和 ffwd（评分程序会检查）", "Block passes its own arguments on to sa and ffwd, as written here (the grader checks them)"),
        ),
        "test_attention_dropout_last_in_training": _e(MHA_FORMULA),
        "test_feed_forward_dropout_last_in_training": _e(FFWD_NET),
    },
    "ex7_gpt": {
        "test_position_embeddings_matter": _e(GPT_FORMULA, public=("test_logits",)),
        "test_gpt_does_not_see_the_future": _e(
            _p("GPT", "位置 t 的 logits 只取决于位置 0..t 的字。", "The logits at position t depend on the tokens at positions 0..t only."),
        ),
        "test_full_block_and_one_position": _e(
            _p("GPT", "T 可以是 1 到 block_size 之间的任意长度。", "T may be any length from 1 to block_size."),
            _p("GPT", "loss: cross-entropy over every position"),
            public=("test_loss_over_every_position",),
        ),
        "test_gpt_gradients": _e(GPT_FORMULA),
        "test_dropout_passed_on_and_off_in_eval": _e(
            _p("GPT", "每个 Block 都按这个顺序拿到这四个参数，dropout 也要传下去", "Every Block gets these four arguments, in this order, dropout included"),
        ),
        "test_generate_crops_a_long_idx": _e(
            _p("", "生成时每次只看最后 block_size 个字", "To write, look at the last block_size characters only"),
            _p("GPT.generate", "每一步：裁到最后 block_size 个字", "Each step: crop to the last block_size tokens"),
            _p("GPT.generate", "T 可以比 block_size 长", "T may exceed block_size"),
            public=("test_generate_continues_from_the_last_position",),
        ),
        "test_generate_samples_with_multinomial": _e(
            _p("", "按最后一个位置的 softmax 抽下一个字", "sample the next one from the softmax of the last position"),
        ),
    },
}
