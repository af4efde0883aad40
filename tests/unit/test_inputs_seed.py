"""The checks' random inputs under a secret (issue 18, section 6):
``grader.authoring.checking`` seeds each check's generator with a hash of (secret,
check seed), so that every bit of the secret counts. Secret 0 is the
student's own run: the inputs as written, which the release's recorded
answers were made for (tests/teacher/test_release.py grades against them).

Mixed in linearly, as before, a secret counted with its low 32 bits only (the
CPU generator keeps 32 bits of its seed), and one check's inputs under one
secret were another check's under a related one.
"""

import pytest
import torch

from grader.authoring import checking

CHECK_SEEDS = [0, 1, 2, 7, 123, 2026]
OLD_FACTOR = 0x9E3779B97F4A7C15  # the old mixing: seed * OLD_FACTOR + secret (mod 2**63)


@pytest.fixture(autouse=True)
def restore_secret():
    before = checking._inputs_seed
    yield
    checking.set_inputs_seed(before)


def inputs(secret: int, seed: int) -> dict:
    checking.set_inputs_seed(secret)
    return {
        "randn": checking.randn(4, 8, seed=seed),
        "float64": checking.randn(3, seed=seed, dtype=torch.float64),
        "randint": checking.randint(65, 16, seed=seed),
        "pick": checking.pick(seed, *range(100)),
        "state": checking.random_state({"key.weight": (4, 12), "ln1.weight": (12,)}, seed=seed),
    }


def same(a: dict, b: dict) -> bool:
    return torch.equal(a["randn"], b["randn"]) and torch.equal(a["randint"], b["randint"])


def test_secret_zero_gives_the_inputs_as_written():
    for seed in CHECK_SEEDS:
        got = inputs(0, seed)
        assert torch.equal(got["randn"], torch.randn(4, 8, generator=torch.Generator().manual_seed(seed)))
        assert torch.equal(got["float64"], torch.randn(3, generator=torch.Generator().manual_seed(seed), dtype=torch.float64))
        assert torch.equal(got["randint"], torch.randint(65, (16,), generator=torch.Generator().manual_seed(seed)))
        assert got["pick"] == 0
        g = torch.Generator().manual_seed(seed)
        assert torch.equal(got["state"]["key.weight"], torch.randn(4, 12, generator=g) * 12**-0.5)
        assert torch.equal(got["state"]["ln1.weight"], 1 + 0.5 * torch.randn(12, generator=g))


@pytest.mark.parametrize("high", [1 << 32, 1 << 40, 1 << 61])
def test_secrets_that_agree_in_their_low_32_bits_give_other_inputs(high):
    secret = 0x5EC2E7
    for seed in CHECK_SEEDS:
        assert not same(inputs(secret, seed), inputs(secret + high, seed)), seed


def test_one_checks_inputs_are_not_anothers_under_a_related_secret():
    """Under the old mixing, check a with secret s drew what check b drew with
    s + (a - b) * OLD_FACTOR."""
    secret = 987654321
    for a, b in [(1, 2), (7, 123), (2026, 0)]:
        related = (secret + (a - b) * OLD_FACTOR) % (1 << 63)
        assert (a * OLD_FACTOR + secret) % (1 << 63) == (b * OLD_FACTOR + related) % (1 << 63)
        assert not same(inputs(secret, a), inputs(related, b)), (a, b)


def test_a_secret_changes_every_checks_inputs_and_sizes():
    """Each check's inputs differ from those as written and from another
    secret's, and a size picked from options takes more than one value."""
    for seed in CHECK_SEEDS:
        written = inputs(0, seed)
        assert not same(written, inputs(1, seed)) and not same(inputs(1, seed), inputs(2, seed))
    assert len({inputs(secret, 5)["pick"] for secret in range(1, 40)}) > 10
    assert torch.equal(inputs(-3, 5)["randn"], inputs(-3, 5)["randn"])  # the same secret, the same inputs
