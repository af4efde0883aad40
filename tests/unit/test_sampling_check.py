"""The ex7 sampling checks judge generate by what it draws (grader.authoring.checking.draw_violations).

Shown here, without the grader, on the checks' own model and sizes:

- the false alarm rate is at most 1e-6: the bounds' exact binomial tails,
  summed over every bound of a check, stay below it;
- right samplers (torch.multinomial, Categorical, Gumbel-max, inverse CDF),
  run with many independent seeds, never raise an alarm;
- the power: each usual wrong sampler (a temperature of 0.7 or 1.5, top-k 2,
  top-p 0.9, argmax, the logits without softmax, the first position) passes
  with probability below 1e-12, computed exactly, and fails in every seeded run.

The whole file runs in CI (tox -e test) in well under a minute.
"""

import math

import pytest
import torch

from grader.authoring.checking import FALSE_ALARM, count_bounds, draw_violations
from grader.authoring.contract import SAMPLING_RATIO, sampling_logits

ROWS_EACH, CONTEXTS = 4000, 2
# (vocab_size, steps) of the public check and of the hidden one.
CONFIGS = {"public": (11, 1), "hidden": (9, 2)}


def beta(vocab_size: int, steps: int, groups: int = CONTEXTS) -> float:
    """Each bound's share of the false alarm rate at the first step (as draw_violations shares it)."""
    return FALSE_ALARM / steps / (2 * vocab_size * groups)


def binomial_pmf(n: int, p: float) -> torch.Tensor:
    k = torch.arange(n + 1, dtype=torch.float64)
    if p <= 0 or p >= 1:
        return (k == (0 if p <= 0 else n)).to(torch.float64)
    log = torch.lgamma(torch.tensor(n + 1.0, dtype=torch.float64)) - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)
    return torch.exp(log + k * math.log(p) + (n - k) * math.log1p(-p))


def sorted_probs(vocab_size: int) -> torch.Tensor:
    return torch.softmax(sampling_logits(vocab_size, seed=1)[0], dim=-1).sort(descending=True).values


def test_the_model_is_as_promised():
    """Not uniform, four likely tokens, a different distribution after each token, positive logits."""
    for vocab_size in (9, 11):
        logits = sampling_logits(vocab_size, seed=3)
        probs = torch.softmax(logits, dim=-1)
        assert (logits >= 1 - 1e-12).all()
        assert int((probs[0] > 0.08).sum()) >= 4 and float(probs.max()) < 0.45
        assert len({tuple(row.argsort().tolist()) for row in probs}) == vocab_size
        assert torch.allclose(probs.sort(dim=-1).values, probs[:1].sort(dim=-1).values.expand_as(probs))
    assert SAMPLING_RATIO == 0.6


@pytest.mark.parametrize("n, p, b", [(4000, 0.4, 1e-8), (4000, 0.0045, 1e-8), (100, 0.3, 1e-3), (7, 0.5, 0.01), (4000, 0.0, 1e-8)])
def test_count_bounds_are_the_tightest_chernoff_bounds(n, p, b):
    lo, hi = count_bounds(n, p, b)
    if p == 0:
        assert (lo, hi) == (-1, 1)
        return

    def chernoff(k):
        a = k / n
        kl = (a * math.log(a / p) if a > 0 else 0) + ((1 - a) * math.log((1 - a) / (1 - p)) if a < 1 else 0)
        return math.exp(-n * kl)

    assert hi == n + 1 or chernoff(hi) <= b
    assert hi - 1 < n * p or chernoff(hi - 1) > b
    assert lo == -1 or chernoff(lo) <= b
    assert lo + 1 > n * p or chernoff(lo + 1) > b


@pytest.mark.parametrize("config", CONFIGS)
def test_the_false_alarm_rate_is_at_most_one_in_a_million(config):
    """The exact probability that a right sampler's count breaks a bound,
    summed over all the bounds of the check (a union bound), is below 1e-6.
    Later steps have groups of random size: each is shown for every size a
    group can have, with the share the check gives it."""
    vocab_size, steps = CONFIGS[config]
    p = sorted_probs(vocab_size)
    total = 0.0
    for _ in range(CONTEXTS):
        for v in range(vocab_size):
            lo, hi = count_bounds(ROWS_EACH, float(p[v]), beta(vocab_size, steps))
            pmf = binomial_pmf(ROWS_EACH, float(p[v]))
            total += float(pmf[: lo + 1].sum() + pmf[hi:].sum())
    assert total <= FALSE_ALARM / steps
    if steps > 1:
        # Step 2: up to vocab_size * CONTEXTS groups, each of any size n given
        # step 1: every bound's exact tail stays within its share, for any n.
        share = FALSE_ALARM / steps / (2 * vocab_size * vocab_size * CONTEXTS)
        for n in (1, 2, 5, 17, 100, 640, 1616, 4000):
            for v in range(vocab_size):
                lo, hi = count_bounds(n, float(p[v]), share)
                pmf = binomial_pmf(n, float(p[v]))
                assert float(pmf[: lo + 1].sum()) <= share and float(pmf[hi:].sum()) <= share
    print(f"{config}: exact false alarm of step 1 {total:.2e} (at most {FALSE_ALARM / steps:.0e})")


def right_samplers():
    def multinomial(probs, g):
        return torch.multinomial(probs, 1, generator=g)[:, 0]

    def categorical(probs, g):
        # Categorical's own sample() draws from the global generator: its inverse CDF, here with g.
        cdf = probs.cumsum(-1)
        u = torch.rand(probs.shape[0], 1, generator=g, dtype=probs.dtype) * cdf[:, -1:]
        return torch.searchsorted(cdf, u, right=True)[:, 0].clamp(max=probs.shape[-1] - 1)

    def gumbel(probs, g):
        u = torch.rand(probs.shape, generator=g, dtype=probs.dtype).clamp_min(1e-300)
        return torch.argmax(probs.log() - torch.log(-torch.log(u)), dim=-1)

    def exponential_race(probs, g):
        e = torch.empty(probs.shape, dtype=probs.dtype).exponential_(generator=g)
        return torch.argmax(probs / e, dim=-1)

    def count_below(probs, g):
        u = torch.rand(probs.shape[0], 1, generator=g, dtype=probs.dtype)
        return (probs.cumsum(-1) < u).sum(-1).clamp(max=probs.shape[-1] - 1)

    return {"multinomial": multinomial, "inverse_cdf": categorical, "gumbel_max": gumbel, "exponential_race": exponential_race, "count_below": count_below}


def wrong_distributions(p: torch.Tensor, logits: torch.Tensor, first_row: torch.Tensor) -> dict:
    """What each usual mistake draws from, for one context: p its softmax,
    logits its logits, first_row the softmax after the context's first token."""
    out = {f"temperature_{tau}": torch.softmax(logits / tau, dim=-1) for tau in (0.7, 1.5)}
    top2 = torch.zeros_like(p).scatter_(-1, p.topk(2).indices, p.topk(2).values)
    out["top_k_2"] = top2 / top2.sum()
    sp, order = p.sort(descending=True)
    keep = (sp.cumsum(-1) - sp) <= 0.9
    nucleus = torch.zeros_like(p).scatter_(-1, order, sp * keep)
    out["top_p_0.9"] = nucleus / nucleus.sum()
    out["argmax"] = torch.nn.functional.one_hot(p.argmax(), len(p)).to(p.dtype)
    out["logits_without_softmax"] = logits / logits.sum()
    out["first_position"] = first_row
    return out


def check_setup(vocab_size: int, seed: int = 5):
    """Two contexts: their last tokens 0 and 1, their first tokens 2 and 3; probs per row, (B, 1, V)."""
    logits = sampling_logits(vocab_size, seed=seed)
    probs = torch.softmax(logits, dim=-1)
    group = torch.arange(CONTEXTS * ROWS_EACH) % CONTEXTS
    return logits, probs, group


@pytest.mark.parametrize("config", CONFIGS)
def test_right_samplers_never_raise_an_alarm(config):
    """Each right sampler, 200 independent seeds each, against the check's own bounds."""
    vocab_size, steps = CONFIGS[config]
    logits, probs, group = check_setup(vocab_size)
    row_probs = probs[group]  # (B, V): context g's last token is g
    b = beta(vocab_size, steps)
    bounds = torch.tensor([[count_bounds(ROWS_EACH, float(probs[g, v]), b) for v in range(vocab_size)] for g in range(CONTEXTS)])  # (G, V, 2)
    runs, chunk = 200, 50
    for i, (name, sampler) in enumerate(right_samplers().items()):
        g = torch.Generator().manual_seed(1000 + i)
        alarms = 0
        for _ in range(0, runs, chunk):
            draws = sampler(row_probs.repeat(chunk, 1), g).view(chunk, -1)  # (chunk, B)
            cell = (torch.arange(chunk)[:, None] * CONTEXTS + group) * vocab_size + draws
            counts = torch.bincount(cell.flatten(), minlength=chunk * CONTEXTS * vocab_size).view(chunk, CONTEXTS, vocab_size)
            alarms += int(((counts <= bounds[..., 0]) | (counts >= bounds[..., 1])).any(-1).any(-1).sum())
        assert alarms == 0, f"{name}: {alarms} false alarms in {runs} runs"
        # The same through draw_violations itself, for one run.
        tokens = sampler(row_probs, g)[:, None].repeat(1, steps)
        assert draw_violations(tokens, row_probs[:, None, :].repeat(1, steps, 1)) == []


@pytest.mark.parametrize("config", CONFIGS)
def test_wrong_samplers_are_caught(config):
    """The chance that a wrong sampler passes is at most that of one count
    (the one that says most) staying within its bounds: computed exactly, it
    is below 1e-12 for every mistake. And every seeded run catches it."""
    vocab_size, steps = CONFIGS[config]
    logits, probs, group = check_setup(vocab_size)
    b = beta(vocab_size, steps)
    first_tokens = (2, 3)
    worst = {}
    for ctx in range(CONTEXTS):
        wrong = wrong_distributions(probs[ctx], logits[ctx], probs[first_tokens[ctx]])
        for name, q in wrong.items():
            passes = 1.0
            for v in range(vocab_size):
                lo, hi = count_bounds(ROWS_EACH, float(probs[ctx, v]), b)
                pmf = binomial_pmf(ROWS_EACH, float(q[v]))
                passes = min(passes, float(pmf[lo + 1 : hi].sum()))
            worst[name] = max(worst.get(name, 0.0), passes)
    print(f"{config}: chance that a wrong sampler passes, at most " + ", ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    assert all(v < 1e-12 for v in worst.values()), worst
    assert len(worst) == 7
    # Seeded runs, through draw_violations.
    g = torch.Generator().manual_seed(11)
    for name in worst:
        rows = torch.stack([wrong_distributions(probs[c], logits[c], probs[first_tokens[c]])[name] for c in range(CONTEXTS)])[group]
        for _ in range(3):
            tokens = torch.multinomial(rows, 1, replacement=True, generator=g)
            assert draw_violations(tokens, probs[group][:, None, :], first_only=True), name
