"""ex7 实验：字的嵌入加位置嵌入，logits 的形状，以及一个什么都不知道的模型的损失。
ex7 experiment: token plus position embeddings, the logits' shape, and the loss
of a model that knows nothing yet.

只用 torch，不用你的代码：ex7 没做完也能运行。改一改 text 或 n_embd，再运行一次：
Plain torch, none of your code: it runs before ex7 is solved. Change text or
n_embd and run it again:

    tox exec -e grade -- python experiments/ex7_gpt_experiment.py
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
text = "春江潮水连海平，海上明月共潮生"
chars = sorted(set(text))
vocab_size, n_embd, block_size = len(chars), 8, len(text)

idx = torch.tensor([[chars.index(c) for c in text]])  # (B, T) = (1, T)
B, T = idx.shape
token_embedding_table = nn.Embedding(vocab_size, n_embd)
position_embedding_table = nn.Embedding(block_size, n_embd)
lm_head = nn.Linear(n_embd, vocab_size)  # 真正的 GPT 在这之前还有几个块和 ln_f / the real GPT has blocks and ln_f before this

with torch.no_grad():
    tok = token_embedding_table(idx)  # (B, T, n_embd)：按字查 / looked up by token
    pos = position_embedding_table(torch.arange(T))  # (T, n_embd)：按位置查 / looked up by position
    x = tok + pos  # (B, T, n_embd)：每一批都加同一组位置 / the same positions added to every batch
    logits = lm_head(x)  # (B, T, vocab_size)

first, second = text.index("海"), text.index("海", text.index("海") + 1)
print("vocab_size, n_embd, T:", vocab_size, n_embd, T)
print("idx", tuple(idx.shape), "-> tok", tuple(tok.shape), "+ pos", tuple(pos.shape), "-> x", tuple(x.shape))
print("logits", tuple(logits.shape), "= (B, T, vocab_size)")
# 同一个字在两个位置：字的嵌入一样，加上位置以后就不一样了
# the same character at two positions: the same token embedding, different once the position is added
print(f"“海”在位置 at positions {first} 和 and {second}: 字嵌入相同 same token embedding:", torch.equal(tok[0, first], tok[0, second]))
print(f"“海”在位置 at positions {first} 和 and {second}: 加上位置后相同 same after adding positions:", torch.equal(x[0, first], x[0, second]))

# 每个位置预测下一个字：targets 是 idx 往左挪一格 / every position predicts the next token: targets are idx shifted by one
targets = idx[:, 1:]
loss = F.cross_entropy(logits[:, :-1].reshape(-1, vocab_size), targets.reshape(-1))
uniform = F.cross_entropy(torch.zeros(T - 1, vocab_size), targets.reshape(-1))  # 每个字一样可能 / every token equally likely
print("均匀猜测的损失 loss of a uniform guess:", round(uniform.item(), 4), " ln(vocab_size):", round(math.log(vocab_size), 4))
# 随机的 logits 有高有低，却高低得毫无道理：这比均匀猜测还差 / random logits are confident for no reason: worse than a uniform guess
print("没训练的模型的损失 untrained loss:      ", round(loss.item(), 4))
