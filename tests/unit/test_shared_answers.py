"""What a batch shares between students, and why sharing stays fair.

A batch grades every student on the same draws, states and reference
answers. To keep a student's processor time down (issue 38: at most 15 %
above 8722fb6, ``bench/grading_floor.py --baseline``) they are no longer
copied for each student: the same tensors are handed out, their bytes
encoded and hashed once (``protocol._Remembered``). Sharing is only fair
while nothing changes them, so:

- a tensor changed in place is encoded and hashed anew (its version counter
  moved on): a stale copy of its bytes is never sent;
- a check that changes a shared state (``checking.random_state``) or a
  reference answer (``recorded.MemoReference``) in place is found the next
  time it is asked for, and grading stops with an error naming it, instead
  of grading the next student on other inputs;
- what is remembered goes with its tensor.
"""

import gc

import pytest
import torch

from grader.authoring import checking
from grader.child import ops, protocol
from grader.engine import recorded


def test_a_tensor_changed_in_place_is_sent_and_hashed_anew():
    x = torch.randn(3, 4).mT  # a view: its layout is kept, its span remembered
    first = protocol.encode({"x": x}, layouts=True)
    key = recorded.request_key({"x": x})
    assert protocol.encode({"x": x}, layouts=True) == first  # remembered, the same
    x.mul_(2)
    back = protocol.decode(protocol.encode({"x": x}, layouts=True)[8:])["x"]
    assert torch.equal(back, x)
    assert recorded.request_key({"x": x}) != key
    assert recorded.request_key({"x": x}) == recorded.request_key({"x": x.clone()})


def test_what_is_remembered_goes_with_its_tensor():
    x = torch.randn(5)
    protocol.encode([x], layouts=True)
    recorded.request_key({"x": x})
    keys = [key for key in protocol._REMEMBERED._by_key if key[0] == id(x)]
    assert len(keys) == 1  # its values, for the message and for the hash alike
    del x
    gc.collect()
    assert not any(key in protocol._REMEMBERED._by_key for key in keys)


def test_a_new_tensor_at_a_dead_ones_address_is_not_taken_for_it():
    for i in range(200):  # addresses are reused quickly; each must get its own bytes
        x = torch.full((3,), float(i))
        assert torch.equal(protocol.decode(protocol.encode([x], layouts=True)[8:])[0], x)
        del x


def test_shared_state_is_the_same_tensors_and_a_change_is_found(monkeypatch):
    monkeypatch.setattr(checking, "_states", {})
    a = checking.random_state({"w": (2, 3)}, seed=1)
    b = checking.random_state({"w": (2, 3)}, seed=1)
    assert a is not b and a["w"] is b["w"]
    b["w"] = torch.zeros(2, 3)  # a dict of its own: replacing an entry is harmless
    assert not torch.equal(checking.random_state({"w": (2, 3)}, seed=1)["w"], b["w"])
    a["w"].add_(1)  # changing the tensor itself is not
    with pytest.raises(RuntimeError, match="changed the shared state's w in place"):
        checking.random_state({"w": (2, 3)}, seed=1)


class _Counting:
    def __init__(self):
        self.asked = 0

    def request(self, request):
        self.asked += 1
        return {"value": torch.ones(3), "args": [torch.zeros(2)], "shares": [False]}


def test_the_reference_answers_once_and_a_changed_answer_is_found():
    real = _Counting()
    memo = recorded.MemoReference(real, {})
    request = ops.call("f", torch.arange(3.0))
    first = memo.request(request)
    second = memo.request(ops.call("f", torch.arange(3.0)))
    assert real.asked == 1
    assert first is not second and first["value"] is second["value"]
    second["value"] = torch.zeros(3)  # its own dict
    assert torch.equal(memo.request(request)["value"], torch.ones(3))
    first["args"][0].add_(1)
    with pytest.raises(RuntimeError, match="changed a reference answer in place"):
        memo.request(request)
