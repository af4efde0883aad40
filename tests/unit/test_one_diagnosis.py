"""A hint only for its own mistake (grader/authoring/checking.py): a diagnosis is shown
when the answer is what that mistake computes and what no other mistake the
check lists (with another hint) computes; a check inside ``caused_by`` whose
finder names another function says so instead, and computes no diagnosis.
The whole catalogue is held to it by tests/grading/test_catalogue.py."""

import pytest
import torch

from grader.authoring.checking import CheckFailed, Fault, SubmissionFault, caused_by, expect, expect_close, expect_draws, t

WANT = torch.tensor([1.0, 2.0, 3.0])
GOT = torch.tensor([2.0, 4.0, 6.0])
DOUBLED = t("翻倍了。", "Doubled.")
SUMMED_TWICE = t("加了两次。", "Added twice.")
OTHER = t("另一个函数错了。", "Another function is wrong.")


def failure(check) -> CheckFailed:
    with pytest.raises(CheckFailed) as failed:
        check()
    return failed.value


def test_one_matching_mistake_is_named():
    found = failure(lambda: expect_close(GOT, WANT, t("x", "x"), diagnoses=[(2 * WANT, DOUBLED), (WANT + 1, SUMMED_TWICE)]))
    assert found.diagnosis == DOUBLED and found.hint == DOUBLED


def test_two_mistakes_with_the_same_hint_name_it():
    found = failure(lambda: expect_close(GOT, WANT, t("x", "x"), diagnoses=[(2 * WANT, DOUBLED), (WANT * 2.0, DOUBLED)]))
    assert found.diagnosis == DOUBLED


def test_two_mistakes_that_both_match_name_neither():
    found = failure(lambda: expect_close(GOT, WANT, t("x", "x"), diagnoses=lambda: [(2 * WANT, DOUBLED), (WANT + WANT, SUMMED_TWICE)]))
    assert found.diagnosis is None and found.hint is None and not found.diagnosed
    assert "3 of 3 entries differ" in found.difference.en  # what differs is still said


def test_draws_that_two_mistakes_explain_name_neither():
    tokens = torch.zeros(400, 1, dtype=torch.long)  # always token 0
    right = torch.full((400, 1, 2), 0.5, dtype=torch.float64)
    certain = torch.tensor([1.0, 0.0], dtype=torch.float64).expand(400, 1, 2)
    alone = failure(lambda: expect_draws(tokens, right, t("x", "x"), diagnoses=[(certain, DOUBLED)]))
    assert alone.diagnosis == DOUBLED
    both = failure(lambda: expect_draws(tokens, right, t("x", "x"), diagnoses=[(certain, DOUBLED), (certain.clone(), SUMMED_TWICE)]))
    assert both.diagnosis is None


def test_a_cause_is_said_instead_of_a_diagnosis_and_none_is_computed():
    asked = []

    def diagnoses():
        asked.append("diagnoses")
        return [(2 * WANT, DOUBLED)]

    with pytest.raises(CheckFailed) as failed:
        with caused_by(lambda: OTHER):
            expect_close(GOT, WANT, t("x", "x"), diagnoses=diagnoses)
    assert failed.value.hint == OTHER and failed.value.diagnosis is None and not failed.value.diagnosed
    assert asked == []


def test_no_cause_leaves_the_diagnosis():
    with pytest.raises(CheckFailed) as failed:
        with caused_by(lambda: None):
            expect_close(GOT, WANT, t("x", "x"), diagnoses=[(2 * WANT, DOUBLED)])
    assert failed.value.diagnosis == DOUBLED


def test_a_finder_is_asked_only_when_the_answer_is_wrong_and_once():
    asked = []

    def find():
        asked.append(1)
        return OTHER

    with caused_by(find):
        expect_close(WANT.clone(), WANT, t("x", "x"))
        expect(True, t("x", "x"), "", "")
    assert asked == []
    with pytest.raises(CheckFailed) as failed:
        with caused_by(find):
            expect(False, t("x", "x"), "got", "want", t("某个错误。", "Some mistake."), diagnosed=True)
    assert failed.value.hint == OTHER and failed.value.diagnosis is None
    assert asked == [1]
    with pytest.raises(CheckFailed):
        with caused_by(find):
            expect_close(GOT, WANT, t("x", "x"))
    assert asked == [1, 1]


def test_a_fault_while_finding_names_no_cause():
    def find():
        raise SubmissionFault(Fault(t("出错了", "it raised")))

    with pytest.raises(CheckFailed) as failed:
        with caused_by(find):
            expect_close(GOT, WANT, t("x", "x"), diagnoses=[(2 * WANT, DOUBLED)])
    assert failed.value.diagnosis == DOUBLED
