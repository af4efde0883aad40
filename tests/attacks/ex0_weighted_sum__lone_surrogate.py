"""Accident or attack: a correct answer that holds half of a UTF-16 pair (a
lone surrogate, U+D800, written as UTF-8 would write it) in a string.

As a .py Python itself cannot read it (not UTF-8): 0 and the note says
UTF-8. As a notebook (tests/test_attacks.py: as_notebook) the cell holds
the JSON escape "\\ud800", which reading a notebook decodes to the lone
surrogate itself: that ended the grading with a UnicodeEncodeError and no
results.json; now it is 0 for this exercise with a note, and the others
are graded."""
import torch


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    weights = torch.softmax(scores, dim=-1)  # (..., T)
    return torch.einsum("...t,...tc->...c", weights, values)  # (..., C)

MARK = "í €"
