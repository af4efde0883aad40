"""Mutation testing as a standing measure of the checks (bench/mutation.py).

A deterministic sample of cosmic-ray's mutants of the solutions, a few per
exercise, is graded as a teacher's grading grades (every check, hidden ones
included) through the session's one grader, and each must lose points or be
listed in ``checks/equivalent_mutants.toml``; every entry of that list must
still name a mutant the tool makes. The PyTorch operators (cosmic-ray's
plugin in bench/torch_mutations) do what their examples say and leave code
they do not concern alone, and the report names a survivor.
"""

import ast

import cosmic_ray.plugins
import pytest
from conftest import SOLUTIONS
from cosmic_ray.mutating import mutate_code
from cosmic_ray_torch.operators import OPERATORS, SwapDim

from bench import mutation
from grader.exercises import IDS

SAMPLE = 3  # mutants per exercise: the whole run is `python bench/mutation.py`

# Sampled mutants that the checks do not kill yet: gaps to close in checks/
# (or, if a promise of the stub allows it, to list as equivalent). Empty: the
# test fails when a sampled mutant survives, and when one listed here is killed.
KNOWN_GAPS: set[str] = set()


@pytest.fixture(scope="module")
def made() -> dict:
    names = mutation.operator_names()
    return {ex: mutation.make_mutants(ex, operators=names) for ex in IDS}


def test_a_sample_of_mutants_is_killed_or_listed_as_equivalent(grader, made):
    chosen = [m for ex in IDS for m in mutation.sample(made[ex].mutants, SAMPLE)]
    assert len(chosen) == SAMPLE * len(IDS)
    full = mutation.full_marks(grader)
    outcomes = mutation.grade_mutants(grader, chosen, full)
    assert sorted(o.mutant.id for o in outcomes) == sorted(m.id for m in chosen)
    assert [o for o in outcomes if o.verdict == "error"] == []
    survivors = {o.mutant.id for o in outcomes if o.verdict == "survived"}
    assert survivors - KNOWN_GAPS == set(), "mutants the checks miss (see bench/mutation.py)"
    sampled = {m.id for m in chosen}
    assert (KNOWN_GAPS & sampled) - survivors == set(), "killed now: take them out of KNOWN_GAPS"


def test_every_listed_equivalent_mutant_is_still_made(made):
    entries = mutation.load_equivalents()
    assert entries, "checks/equivalent_mutants.toml lists nothing"
    ids = [mutation.entry_id(e) for e in entries]
    assert len(ids) == len(set(ids)), "an entry is listed twice"
    made_ids = {m.id for ex in IDS for m in made[ex].mutants}
    assert [i for i in ids if i not in made_ids] == [], "entries that match no mutant: the code changed, update them"
    assert all(e["reason"].strip() and e["exercise"] in IDS for e in entries)


def test_a_stale_entry_is_found(made, tmp_path):
    path = tmp_path / "equivalent_mutants.toml"
    path.write_text(
        '[[equivalent]]\nexercise = "ex3_scaling"\noperator = "torch/DetachResult"\nbefore = \'return scores * head_size**-0.5\'\nafter = \'return scores\'\nreason = "made up"\n',
        encoding="utf-8",
    )
    (entry,) = mutation.load_equivalents(str(path))
    assert mutation.entry_id(entry) not in {m.id for m in made["ex3_scaling"].mutants}
    path.write_text('[[equivalent]]\nexercise = "ex3_scaling"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="lacks"):
        mutation.load_equivalents(str(path))


class _FakeGrade:
    """What ``verdict`` reads of a grade: the exercise's points, and the grader's own errors."""

    def __init__(self, got: float, most: float = 10.0, errors=()):
        self.got, self.most, self.errors = got, most, list(errors)

    def exercise_points(self, exercise):
        return self.got, self.most


def test_a_mutant_at_full_marks_is_reported_as_a_survivor(made, capsys):
    mutant = next(m for m in made["ex3_scaling"].mutants if m.operator == "torch/DetachResult")
    listed = {mutant.id: {"reason": "the same on every input"}}
    assert mutation.verdict(_FakeGrade(10.0), mutant, 10.0, {}).verdict == "survived"
    assert mutation.verdict(_FakeGrade(9.5), mutant, 10.0, {}).verdict == "killed"
    assert mutation.verdict(_FakeGrade(0.0), mutant, 10.0, listed).verdict == "killed"
    assert mutation.verdict(_FakeGrade(10.0), mutant, 10.0, listed).verdict == "equivalent"
    assert mutation.verdict(_FakeGrade(10.0, errors=["pytest broke"]), mutant, 10.0, {}).verdict == "error"
    assert mutation.verdict(RuntimeError("gone"), mutant, 10.0, {}).verdict == "error"

    outcome = mutation.verdict(_FakeGrade(10.0), mutant, 10.0, {})
    rows = mutation.table([outcome], {"ex3_scaling": made["ex3_scaling"]})
    assert rows[0]["survived"] == 1 and rows[0]["killed"] == 0
    mutation.print_report(rows, [outcome], 1.0, 7)
    out = capsys.readouterr().out
    assert "SURVIVORS: 1" in out
    assert f"solutions/ex3_scaling.py:{mutant.line} [solution] {mutant.operator}" in out
    assert "+    return (scores * head_size**-0.5).detach()" in out
    record = mutation.as_json(rows, [outcome], 1.0, 7)["mutants"][0]
    assert record["verdict"] == "survived" and record["id"] == mutant.id and "source" not in record


def test_mutants_change_code_not_docstrings(made):
    def docstrings(source):
        tree = ast.parse(source)
        return [ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))]

    for ex in IDS:
        with open(f"{SOLUTIONS}/{ex}.py", encoding="utf-8") as f:
            reference = f.read()
        for m in made[ex].mutants:
            assert docstrings(m.source) == docstrings(reference), m.id
            assert m.before != m.after and m.line > 0, m.id
            given = reference.split("\n")[m.line - 1].strip()
            assert m.where == "solution" or given.startswith(("def ", "@")), m.id


# What the PyTorch operators must make of the solutions: (exercise, operator, before, after).
REQUIRED = [
    ("ex0_weighted_sum", "torch/SwapDim", "weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-2)"),
    ("ex0_weighted_sum", "torch/SwapDim", "return (weights.unsqueeze(-2) @ values).squeeze(-2)", "return (weights.unsqueeze(-1) @ values).squeeze(-2)"),
    ("ex1_averaging", "torch/SwapDim", "return tril / tril.sum(dim=1, keepdim=True)", "return tril / tril.sum(dim=0, keepdim=True)"),
    ("ex1_averaging", "torch/SwapTriangle", "tril = torch.tril(torch.ones(T, T))", "tril = torch.triu(torch.ones(T, T))"),
    ("ex4_masking", "torch/RemoveSoftmax", "return torch.softmax(causal_mask(scores), dim=-1)", "return causal_mask(scores)"),
    ("ex2_scores", "torch/RemoveTranspose", "return q @ k.transpose(-2, -1)", "return q @ k"),
    ("ex2_scores", "torch/TransposeToT", "return q @ k.transpose(-2, -1)", "return q @ k.T"),
    ("ex4_masking", "torch/RemoveMaskedFill", 'return scores.masked_fill(~tril, float("-inf"))', "return scores"),
    ("ex4_masking", "torch/ChangeMaskValue", 'return scores.masked_fill(~tril, float("-inf"))', "return scores.masked_fill(~tril, 0.0)"),
    ("ex4_masking", "torch/ChangeMaskValue", 'return scores.masked_fill(~tril, float("-inf"))', "return scores.masked_fill(~tril, -1e9)"),
    ("ex4_masking", "torch/InvertMask", 'return scores.masked_fill(~tril, float("-inf"))', 'return scores.masked_fill(tril, float("-inf"))'),
    ("ex4_masking", "torch/MaskedFillInPlace", 'return scores.masked_fill(~tril, float("-inf"))', 'return scores.masked_fill_(~tril, float("-inf"))'),
    ("ex5_head", "torch/RemoveDropout", "wei = self.dropout(wei)", "wei = wei"),
    ("ex6_block", "torch/SkipSubmodule", "return self.dropout(self.proj(out))", "return self.dropout(out)"),
    ("ex6_block", "torch/OmitDropoutArgument", "[Head(n_embd, head_size, block_size, dropout) for _ in range(n_head)]", "[Head(n_embd, head_size, block_size) for _ in range(n_head)]"),
    ("ex6_block", "torch/RemoveActivation", "nn.ReLU(),", "nn.Identity(),"),
    ("ex5_head", "torch/DetachResult", "return wei @ v", "return (wei @ v).detach()"),
    ("ex5_head", "torch/ChangeDefault", "self.value = nn.Linear(n_embd, head_size, bias=False)", "self.value = nn.Linear(n_embd, head_size, bias=True)"),
    ("ex6_block", "torch/ChangeDefault", "def __init__(self, n_embd: int, dropout: float = 0.0):", "def __init__(self, n_embd: int, dropout: float = 0.5):"),
    ("ex5_head", "torch/MatMulToMul", "return wei @ v", "return wei * v"),
    ("ex3_scaling", "torch/MulToMatMul", "return scores * head_size**-0.5", "return scores @ head_size**-0.5"),
    ("ex7_gpt", "torch/RemoveSlice", "idx_cond = idx[:, -self.block_size :]", "idx_cond = idx"),
    ("ex7_gpt", "core/RemoveDecorator", "@torch.no_grad()", ""),
    ("ex7_gpt", "core/ZeroIterationForLoop", "for _ in range(max_new_tokens):", "for _ in []:"),
]


@pytest.mark.parametrize("exercise,operator,before,after", REQUIRED)
def test_the_operators_make_the_mistakes_of_attention_code(made, exercise, operator, before, after):
    found = [(m.before, m.after) for m in made[exercise].mutants if m.operator == operator]
    assert (before, after) in found, found


def test_the_plugin_is_cosmic_rays():
    names = mutation.operator_names()
    assert {n for n in names if n.startswith("torch/")} == {f"torch/{n}" for n in OPERATORS}
    assert cosmic_ray.plugins.get_operator("torch/SwapDim") is SwapDim
    assert "core/NumberReplacer" in names and "core/ReplaceBinaryOperator_Add_Sub" in names
    assert not [n for n in names if "BitOr" in n or "Variable" in n or "Exception" in n]


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_each_torch_operator_does_what_its_examples_say(name):
    operator = OPERATORS[name]
    assert operator.examples()
    for example in operator.examples():
        assert mutate_code(example.pre_mutation_code, operator(**example.operator_args), example.occurrence) == example.post_mutation_code


@pytest.mark.parametrize(
    "name,code",
    [
        ("SwapTriangle", "m = self.tril[:T, :T] == 0\n"),  # the buffer's name, not a call of tril
        ("SwapDim", "y = x.view(-1, 2)\n"),  # view's sizes are not dims
        ("SwapDim", "y = torch.multinomial(p, num_samples=1)\n"),
        ("MatMulToMul", "@dec\ndef f():\n    pass\n"),  # a decorator's @
        ("MulToMatMul", "f(*args)\n"),  # unpacking, not a product
        ("SkipSubmodule", 'self.register_buffer("tril", t)\n'),  # two arguments: not a layer applied
        ("RemoveDropout", "y = self.proj(x)\n"),
        ("RemoveSlice", "p = logits[:, -1, :]\n"),  # indexing, no crop
        ("DetachResult", "def f():\n    return\n"),
        ("ChangeDefault", "def f(x, targets=None):\n    pass\n"),
    ],
)
def test_the_torch_operators_leave_other_code_alone(name, code):
    assert mutate_code(code, OPERATORS[name](), 0) is None


def test_the_sample_is_the_same_whatever_the_order(made):
    mutants = made["ex5_head"].mutants
    assert [m.id for m in mutation.sample(mutants, 4)] == [m.id for m in mutation.sample(list(reversed(mutants)), 4)]
    assert mutation.sample(mutants, None) == mutants


def test_list_prints_every_mutant(made, capsys):
    assert mutation.main(["--list", "--exercise", "ex3_scaling"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"{len(made['ex3_scaling'].mutants)} mutants")
