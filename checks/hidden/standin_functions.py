"""The grader's stand-ins for the functions of the exercises that define functions.

Not a check: it lives here because this folder is the teacher's alone. Every
function below gives the answer its exercise's docstring promises, so it must
reach no student who has not done that exercise: the student edition leaves
this folder out, the sandbox does not show it, and the grading process reads
it (``grader/standins.py``) and hands a child only the stand-ins of the
exercises before the one it grades, as text. None of it is a solution's code:
each function is written its own way, in plain torch.

One function per name of the exercise table's ``defines``, grouped by
exercise; a stand-in may call only stand-ins of its own exercise, torch and
math.
"""
import math

import torch

# --- ex0_weighted_sum ---------------------------------------------------------


def weighted_sum(scores, values):
    w = torch.softmax(scores, dim=-1)  # stable for large scores; keeps the dtype
    return (w.unsqueeze(-1) * values).sum(dim=-2)  # batch dims broadcast as a product would


# --- ex1_averaging ------------------------------------------------------------


def averaging_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float32).unsqueeze(1)
    return torch.ones(T, T).tril_() / counts


def average_past(x):
    steps = x.shape[-2]
    past = torch.ones(steps, steps, dtype=x.dtype, device=x.device).tril_()
    return torch.matmul(past / past.sum(dim=1, keepdim=True), x)


# --- ex2_scores ---------------------------------------------------------------


def attention_scores(q, k):
    return torch.matmul(q, torch.transpose(k, -1, -2))


# --- ex3_scaling --------------------------------------------------------------


def scale_scores(scores, head_size):
    return torch.mul(scores, head_size ** -0.5)  # a new tensor: the input stays as it is


# --- ex4_masking --------------------------------------------------------------


def causal_mask(scores):
    rows, cols = scores.shape[-2], scores.shape[-1]
    future = torch.ones(rows, cols, dtype=torch.bool, device=scores.device).triu(diagonal=1)
    return torch.where(future, torch.full((), -math.inf, dtype=scores.dtype, device=scores.device), scores)


def causal_weights(scores):
    masked = causal_mask(scores)  # the future at -inf: weight exactly 0
    return masked.softmax(dim=-1)
