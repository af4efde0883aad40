"""Checks over the domain (``grader/authoring/domain.py``): what check authors call.

``expect_function`` asks the child for a function's answers on a few draws
of its domain, in one round trip, back-propagated where asked, and holds
each to the reference's; ``expect_module`` does the same for a module built
with the contract's weights, in eval and train mode, forward and backward,
with its parameters and parts held to the contract's. A batch's answer
that failed is its fault, raised (``unpack``) only where a check looks at it.
"""

import torch

from grader.authoring.domain import DOMAINS, draws
from grader.text import t


def unpack(answer):
    """A batch's answer (``Endpoint.modules``, ``calls``), raising the fault it
    may be: where a check looks at it, not before."""
    from grader.authoring.checking import SubmissionFault

    if isinstance(answer, SubmissionFault):
        raise answer
    return answer


def expect_function(sub, ref, name: str, seed: int, n: int | None = None, diagnoses=None, atol: float = 1e-5, rtol: float = 1e-4, backward: bool = False, **fixed) -> None:
    """A check of the function ``name`` over ``n`` draws of its domain
    (``draws``), asked of the child in one round trip: on each, the
    submission's answer must be the reference's. ``diagnoses(draw, want)``:
    the usual mistakes' answers on that draw, as ``expect_close`` takes them.
    ``backward``: each call is back-propagated, and the gradient of every
    tensor argument must be the reference's too (a result cut from the graph,
    ``.detach()``, passes none back)."""
    from grader.authoring.checking import expect, expect_close

    drawn = draws(name, seed, n, **fixed)
    answers = zip(sub.calls(name, [d.args for d in drawn], backward), ref.calls(name, [d.args for d in drawn], backward))
    for draw, (got, want) in zip(drawn, answers):
        got, want = unpack(got), unpack(want)
        label = draw.label()
        what = t(f"{name}，{label.zh}", f"{name} on {label.en}")
        if backward:
            (got, got_grads), (want, want_grads) = got, want
        expect_close(got, want, what=what, diagnoses=(lambda: diagnoses(draw, want)) if diagnoses else (), atol=atol, rtol=rtol)
        if not backward:
            continue
        for i, (g, w) in enumerate(zip(got_grads, want_grads)):
            if w is None or (g is None and not bool((w != 0).any())):
                continue  # no gradient where the true one is 0 is no mistake
            grad_what = t(f"{what.zh}，再做 backward：第 {i + 1} 个参数的梯度", f"{what.en}, then backward: the gradient of argument {i + 1}")
            expect(
                g is not None,
                grad_what,
                "None",
                t("一个张量", "a tensor").inline(),
                t(
                    "结果不依赖这个参数：计算图被切断了（detach，或在 torch.no_grad() 里算的）。梯度要能穿过这个函数传回输入。",
                    "The result does not depend on this argument: the graph is cut (detach, or computed under torch.no_grad()). Gradients must flow through this function back to its inputs.",
                ),
                diagnosed=True,
            )
            expect_close(g, w, what=grad_what, atol=1e-4, rtol=1e-3)


def module_runs(
    sub, ref, cls: str, seed: int, init: list, state: dict, n: int | None = None, default_init: list | None = None, standins: tuple = (), name: str | None = None, tuple_out: bool = False, **sizes
) -> tuple:
    """The draws of ``cls``'s domain, each built with ``init`` and ``state``
    and run forward and backward (and, with ``default_init``, one more run
    in train mode built with it), asked of the child in one round trip and
    kept on ``sub``: a check that asks again with the same arguments gets
    the same runs. (drawn, got runs, want runs)."""
    fixed = {k: v for k, v in sizes.items() if k not in ("n_embd", "block_size", "vocab_size")}
    shape = {k: v for k, v in sizes.items() if k in ("n_embd", "block_size", "vocab_size")}
    key = (cls, name, seed, repr(init), repr(default_init), n, tuple(standins), tuple_out, tuple(sorted((k, repr(v)) for k, v in sizes.items())))
    kept = sub.__dict__.setdefault("_domain_runs", {})
    if key in kept:
        return kept[key]
    drawn = draws(name or cls, seed, n, **shape, **fixed)
    runs = []
    for draw in drawn:
        x = draw.args[0]
        floating = x.is_floating_point()
        cast = {k: v.to(draw.dtype) for k, v in state.items()} if floating else state
        runs.append(
            dict(init=init, state=cast, inputs=[x], train=draw.train, backward=True, standins=standins, tuple_out=tuple_out, dtype=draw.dtype if floating and draw.dtype != torch.float32 else None)
        )
    if default_init is not None:
        x = draws(name or cls, seed + 7, 1, **shape, **{**fixed, "layout": "contiguous", "dtype": DOMAINS[name or cls].dtypes[0]})[0].args[0]
        runs.append(dict(init=default_init, state=state, inputs=[x], train=True, standins=standins, tuple_out=tuple_out))
    kept[key] = (drawn, sub.modules(cls, runs), ref.modules(cls, runs))
    return kept[key]


def expect_module(
    sub,
    ref,
    cls: str,
    seed: int,
    init: list,
    state: dict,
    n: int | None = None,
    default_init: list | None = None,
    exact_in_train: bool = False,
    standins: tuple = (),
    name: str | None = None,
    tuple_out: bool = False,
    **sizes,
) -> None:
    """A check of the module ``cls`` over draws of its domain (``name``,
    ``cls`` by default; ``sizes``: ``n_embd``, ``block_size``, ``vocab_size``
    and any axis held fixed), built with ``init`` (a dropout > 0 among its
    arguments) and loaded with ``state``, each draw run forward and then
    backward (``module_runs``):

    - in eval mode, the output, the gradient of every parameter and of the
      input must be the reference's;
    - in train mode, backward must run (dropout done in place breaks it),
      and every parameter the reference trains must get a finite gradient;
      with ``exact_in_train`` (a module with no dropout of its own: GPT and
      Block, built on the grader's stand-ins), the output and gradients must
      be the reference's too, so that a dropout the contract does not have
      shows;
    - ``default_init``: built with it (no dropout argument: the default),
      train mode must compute what eval mode does: a default dropout other
      than the contract's 0 shows;
    - on every draw, the module's parameters are the contract's, no more,
      and, built on ``standins``, its parts were built with the contract's
      arguments (``expect_parts``).
    """
    from grader.authoring.checking import expect, expect_close, expect_grads, expect_parts

    drawn, got_runs, want_runs = module_runs(sub, ref, cls, seed, init, state, n, default_init, standins, name, tuple_out, **sizes)
    title = f"{cls}({', '.join(map(repr, init))})"
    for draw, got, want in zip(drawn, got_runs, want_runs):
        got, want = unpack(got), unpack(want)
        label = draw.label()
        what = t(f"{title}，{label.zh}", f"{title} on {label.en}")
        extra, missing = sorted(set(got.params) - set(want.params)), sorted(set(want.params) - set(got.params))
        expect(
            not extra and not missing,
            t(f"{title} 的参数", f"the parameters of {title}"),
            ", ".join(extra + missing),
            t("和约定的一样", "the contract's").inline(),
            t(
                f"约定里没有这些参数：{', '.join(extra)}（比如 bias=False 的线性层带了 bias）。" if extra else f"缺了约定的参数：{', '.join(missing)}。",
                f"Parameters the contract does not have: {', '.join(extra)} (a Linear the docstring builds with bias=False, built with a bias, say)."
                if extra
                else f"The contract's parameters are missing: {', '.join(missing)}.",
            ),
            diagnosed=True,
        )
        if standins:
            expect_parts(got, want, what)  # the stand-ins built with the contract's arguments
        out_got, out_want = (o[0] if isinstance(o, list) else o for o in (got.outs[0], want.outs[0]))
        if draw.train and not exact_in_train:
            expect(
                tuple(out_got.shape) == tuple(out_want.shape) and out_got.dtype == out_want.dtype and bool(torch.isfinite(out_got).all()),
                what,
                f"shape {tuple(out_got.shape)}, {out_got.dtype}",
                f"shape {tuple(out_want.shape)}, {out_want.dtype}",
            )
            for pname, w in want.grads.items():
                g = got.grads.get(pname)
                expect(
                    w is None or (g is not None and bool(torch.isfinite(g).all())),
                    what,
                    t(f"{pname} 没有梯度", f"{pname} has no gradient").inline(),
                    t(f"{pname} 有有限的梯度", f"{pname} has a finite gradient").inline(),
                    t(
                        "训练模式下做 backward，这个参数没有拿到梯度：计算图在它之后被切断了（detach），或者前向没有用到它。",
                        "Backward in train mode gives this parameter no gradient: the graph is cut after it (detach), or forward does not use it.",
                    ),
                )
            continue
        expect_close(out_got, out_want, what=what)
        expect_grads(got, want, what=what)
        if want.input_grad is not None:
            expect(
                got.input_grad is not None,
                what,
                t("x 没有梯度", "x has no gradient").inline(),
                t("x 有梯度", "x has a gradient").inline(),
                t("输出不依赖输入 x：计算图在 x 之后被切断了（detach）。", "The output does not depend on the input x: the graph is cut after it (detach)."),
            )
            expect_close(got.input_grad, want.input_grad, what=t(what.zh + "（x 的梯度）", what.en + " (the gradient of x)"), atol=1e-4, rtol=1e-3)
    if default_init is not None:
        title = f"{cls}({', '.join(map(repr, default_init))})"
        got, want = unpack(got_runs[-1]), unpack(want_runs[-1])
        out_got, out_want = (run.outs[0][0] if isinstance(run.outs[0], list) else run.outs[0] for run in (got, want))
        expect_close(
            out_got,
            out_want,
            what=t(f"{title}（dropout 用默认值），train 模式", f"{title} (dropout left at its default) in train mode"),
        )
