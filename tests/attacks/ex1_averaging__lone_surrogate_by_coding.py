# coding: utf-7
"""Attack: a coding line whose codec decodes to half of a UTF-16 pair (UTF-7
writes U+-D800 as +-2AA-), which Python can neither compile nor write as
UTF-8. It ended the grading with a UnicodeEncodeError and no results.json;
now the exercise gets 0 and a note naming the line. As a notebook the
coding line means nothing (a notebook is JSON, always UTF-8): the cell is
the plain text below, a correct answer, and earns its points."""
import torch


def averaging_matrix(T: int) -> torch.Tensor:
    counts = torch.arange(1, T +- 1, dtype=torch.float32).unsqueeze(1)  # (T, 1)
    return torch.tril(torch.ones(T, T)) / counts  # (T, T)


MARK = "+2AA"
