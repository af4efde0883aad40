"""Mutation operators for PyTorch code, as a cosmic-ray plugin.

cosmic-ray finds operators through providers registered under the entry
point group ``cosmic_ray.operator_providers`` (pyproject.toml registers
``provider.OperatorProvider`` as ``torch``, as cosmic-ray registers its own
``core``): a provider iterates over its operators' names and returns an
operator class by name, so ``cosmic_ray.plugins.get_operator("torch/SwapDim")``
gives ``operators.SwapDim``. Each operator is a ``cosmic_ray.operators.operator.Operator``
on parso trees, with examples of what it does (``Operator.examples``).

The operators are the mistakes of attention code: a dimension swapped
(``SwapDim``), the lower triangle for the upper (``SwapTriangle``), a softmax,
transpose, mask, dropout, projection or activation left out
(``RemoveSoftmax``, ``RemoveTranspose``, ``RemoveMaskedFill``,
``RemoveDropout``, ``SkipSubmodule``, ``RemoveActivation``), a transpose
made the two-dimensional ``.T`` (``TransposeToT``), the mask written into
the caller's tensor (``MaskedFillInPlace``), a crop left out
(``RemoveSlice``), another value in the mask
(``ChangeMaskValue``) or the mask the other way round (``InvertMask``), the
dropout rate not passed on (``OmitDropoutArgument``), a result cut from the
graph (``DetachResult``), a default or a flag changed (``ChangeDefault``), and
``@`` for ``*`` and back (``MatMulToMul``, ``MulToMatMul``).
"""
