"""One grader, one pytest session, many submissions (what each batch worker
does, see ``Grader.grade_each``): every submission is graded as if it were
alone, and what goes wrong with one never reaches the next."""

import os
import shutil

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, as_results, make_submission

from grader.child import limits
from grader.engine.grading import Grader, Job
from grader.exercises import IDS

CATALOGUE = os.path.join(ROOT, "tests", "catalogue", "wrong")
ATTACKS = os.path.join(ROOT, "tests", "attacks")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _outcome(grade) -> list:
    """What a student is told, check by check (timings left out)."""
    return [(t["name"], t["score"], t["status"], t["output"]) for t in as_results(grade)["tests"]]


def test_each_graded_as_if_alone(grader, tmp_path):
    """A mistake, an attack that patches torch at import, a stub and a
    broken file, between two correct submissions: each gets exactly what it
    gets on its own, and the correct ones full marks."""
    folders = [
        SOLUTIONS,
        make_submission(tmp_path / "wrong", {"ex4_masking": _read(os.path.join(CATALOGUE, "ex4_masking__filled_with_zero.py"))}),
        make_submission(tmp_path / "attack", {"ex0_weighted_sum": _read(os.path.join(ATTACKS, "ex0_weighted_sum__patch_torch.py"))}),
        make_submission(tmp_path / "stubs", base=EXERCISES),
        make_submission(tmp_path / "broken", {"ex2_scores": "def scores(q, k):\n    return q @ k.T +\n"}),
        SOLUTIONS,
    ]
    got = []
    grader.grade_each((Job(f, key=i) for i, f in enumerate(folders)), lambda job, grade: got.append((job.key, grade)))
    assert [k for k, _ in got] == list(range(len(folders)))
    alone = [grader.grade(f) for f in folders]
    for (_, together), single in zip(got, alone):
        assert not together.errors and not single.errors
        assert _outcome(together) == _outcome(single)
    scores = [g.score for _, g in got]
    assert scores[0] == scores[-1] == 100
    assert all(s < 100 for s in scores[1:-1])
    assert scores[3] == 0


def test_a_submission_that_cannot_be_set_up(grader, tmp_path, monkeypatch):
    from grader.handin import submission

    real = submission.load
    bad = str(tmp_path / "bad")

    def load(path, *args, **kwargs):
        if path == bad:
            raise OSError("the disk went away")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(submission, "load", load)
    got = []
    grader.grade_each([Job(bad), Job(SOLUTIONS)], lambda job, grade: got.append(grade))
    assert isinstance(got[0], OSError)
    assert got[1].score == 100


def test_ctrl_c_while_waiting_for_work(grader):
    got = []

    def jobs():
        yield Job(SOLUTIONS)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        grader.grade_each(jobs(), lambda job, grade: got.append(grade))
    assert [g.score for g in got] == [100]
    assert grader.grade(SOLUTIONS).score == 100  # the grader still works


def test_the_callers_failure_stops_the_session(grader):
    taken = []

    def jobs():
        for i in range(3):
            taken.append(i)
            yield Job(SOLUTIONS)

    def on_grade(job, grade):
        raise RuntimeError("the gradebook is full")

    with pytest.raises(RuntimeError, match="gradebook is full"):
        grader.grade_each(jobs(), on_grade)
    assert taken == [0]


def _checks_copy(tmp_path) -> str:
    checks = tmp_path / "checks"
    shutil.copytree(os.path.join(ROOT, "checks"), checks, ignore=shutil.ignore_patterns("__pycache__", "hidden"))
    return str(checks)


def _own_grader(checks: str) -> Grader:
    return Grader(checks_dir=checks, solutions_dir=SOLUTIONS, sandbox="off")


def _nothing_left(g: Grader) -> None:
    assert limits.children_of(g.zygote.pid) == []
    assert os.listdir(g.exchange) == []


@pytest.mark.parametrize(
    "damage",
    [
        ("public/test_ex2_scores.py", "def test_(sub:\n"),  # a check file that does not compile
        ("pytest.ini", "[pytest]\naddopts = --no-such-option\n"),  # pytest refuses to start
    ],
    ids=["check-file", "pytest-ini"],
)
def test_broken_checks_are_the_graders_fault_for_everyone(tmp_path, damage):
    """Each submission is reported with the grader's error (and a batch
    marks it to be graded again); none is lost and nothing hangs."""
    checks = _checks_copy(tmp_path)
    name, text = damage
    with open(os.path.join(checks, name), "w", encoding="utf-8") as f:
        f.write(text)
    g = _own_grader(checks)
    try:
        got = []
        g.grade_each([Job(SOLUTIONS, key=i) for i in range(3)], lambda job, grade: got.append((job.key, grade)))
        assert [k for k, _ in got] == [0, 1, 2]
        for _, grade in got:
            assert grade.errors and grade.score == 0
        _nothing_left(g)
    finally:
        g.close()


def test_ctrl_c_inside_a_check(tmp_path):
    """Ctrl-C while the checks of the second submission run: the first is
    reported, the second is not, and its processes and files are gone."""
    checks = _checks_copy(tmp_path)
    with open(os.path.join(checks, "public", "test_ex3_scaling.py"), "a", encoding="utf-8") as f:
        f.write(
            "\n\n_RUNS = []\n\n\n@pytest.mark.points(1)\ndef test_interrupted_the_second_time(sub):\n"
            '    """中断 / interrupted"""\n    _RUNS.append(1)\n    if len(_RUNS) == 2:\n        raise KeyboardInterrupt\n'
        )
    g = _own_grader(checks)
    try:
        got = []
        with pytest.raises(KeyboardInterrupt):
            g.grade_each([Job(SOLUTIONS, key=i) for i in range(3)], lambda job, grade: got.append((job.key, grade)))
        assert [k for k, _ in got] == [0]
        first = got[0][1]
        assert {r.exercise for r in first.results} == set(IDS)
        assert first.score == first.max_score and not first.errors
        _nothing_left(g)
    finally:
        g.close()


@pytest.mark.parametrize("ahead", [True, False], ids=["started-ahead", "started-on-demand"])
def test_a_child_killed_before_its_first_request(grader, ahead):
    """A child started ahead, killed before its exercise began (the exercise
    graded before it may kill it: see tests/attacks/ex0_weighted_sum__kill_all.py),
    is started again once; a child started on demand that dies after its
    import is the exercise's own doing."""
    import tempfile

    import torch

    from grader.authoring.checking import SubmissionFault
    from grader.child.zygote import Zygotes
    from grader.engine.submission_endpoint import SubmissionEndpoint
    from grader.handin import submission

    sub = submission.load(SOLUTIONS)
    workdir = tempfile.mkdtemp(dir=grader.exchange)
    zygotes = Zygotes(grader.zygote, grader.remake)
    endpoint = SubmissionEndpoint(sub.files["ex1_averaging"], zygotes, grader.limits, workdir, sub)
    try:
        if ahead:
            endpoint.prestart()  # forked, waiting for its exercise to begin
        else:
            endpoint._spawn()
            endpoint._start()  # imported
        zygotes.current.kill(endpoint.child.pid)  # the zygote kills it: its pid may be in a sandbox
        if ahead:
            want = torch.tril(torch.ones(3, 3)) / torch.arange(1, 4).unsqueeze(1)
            assert torch.allclose(endpoint.call("averaging_matrix", 3), want)
            zygotes.current.kill(endpoint.child.pid)  # once it has answered, a death is the exercise's own
            with pytest.raises(SubmissionFault, match="ended unexpectedly"):
                endpoint.call("averaging_matrix", 3)
        else:
            with pytest.raises(SubmissionFault, match="ended unexpectedly"):
                endpoint.call("averaging_matrix", 3)
    finally:
        endpoint.close()
        grader.zygote = zygotes.current
        grader.zygote.kill_all()
        shutil.rmtree(workdir, ignore_errors=True)


def test_the_callers_failure_on_a_submission_that_cannot_be_set_up(grader, monkeypatch):
    """The first submission fails before pytest even starts, and the
    caller's handler fails on it: that failure still reaches the caller."""
    from grader.handin import submission

    def load(path, *args, **kwargs):
        raise OSError("the disk went away")

    def on_grade(job, grade):
        raise RuntimeError("the gradebook is full")

    monkeypatch.setattr(submission, "load", load)
    with pytest.raises(RuntimeError, match="gradebook is full"):
        grader.grade_each([Job(SOLUTIONS), Job(SOLUTIONS)], on_grade)
