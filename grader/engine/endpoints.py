"""The two things a check talks to: the submission (in a child process) and
the reference (in this process). Both take the same requests (``ops``), so a
check reads ``got = sub.f(x)`` and ``want = ref.f(x)`` side by side.
"""
import os
import threading
import time
from dataclasses import dataclass

import torch

from grader.checking import Fault, SubmissionFault, describe_part
from grader.child import ops, protocol, standins
from grader.child.limits import Limits
from grader.child.zygote import Zygotes, ZygoteGone
from grader.engine import earlier
from grader.engine.submission import ExerciseFile
from grader.text import NOT_IMPLEMENTED, t, visible


@dataclass
class ModuleRun:
    outs: list
    grads: dict
    input_grad: torch.Tensor | None
    params: list
    parts: list  # the grader's stand-ins inside: [path, contract class, arguments it was built with]


# How long a child may take to say it got the word to import: it does so
# before any submission code runs, so only a stopped or wedged child is late.
WORD_SECONDS = 5.0


class Endpoint:
    def call(self, fn: str, *args, **kwargs):
        return self.request(ops.call(fn, *args, **kwargs))["value"]

    def call_keeping_args(self, fn: str, *args, **kwargs):
        """Like ``call``, but also return the arguments as the call left them."""
        response = self.request(ops.call(fn, *args, **kwargs))
        return response["value"], response["args"]

    def module(self, cls: str, **kwargs) -> ModuleRun:
        """Build ``cls`` and run it (see ``ops.module``). An output is a tensor,
        or with ``tuple_out=True`` a list of tensors and Nones."""
        response = self.request(ops.module(cls, **kwargs))
        if "missing" in response:
            raise SubmissionFault(_contract_fault(cls, response))
        if not kwargs.get("tuple_out") and any(isinstance(o, list) for o in response["outs"]):
            raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
        return ModuleRun(response["outs"], response["grads"], response["input_grad"], response["params"], response["parts"])

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)

    def request(self, request: dict) -> dict:
        raise NotImplementedError


def _contract_fault(cls: str, response: dict) -> Fault:
    lines = []
    # A missing "<part>.standin.*" parameter is a part the student's code did
    # not build through the contract's class (so no stand-in was swapped in).
    unbuilt = sorted({name.split(".standin.")[0] for name in response["missing"] if ".standin." in name})
    for name in unbuilt:
        lines.append(
            f"- {name}: 不是调用约定的类建的 / not built by calling the contract's class "
            "(the grader swaps in its stand-in when your code calls it)"
        )
    for name in response["missing"]:
        if ".standin." not in name:
            lines.append(f"- {name}: 找不到 / not found")
    for name, (have, want) in response["mismatched"].items():
        lines.append(f"- {name}: shape {tuple(have)}, 期望 / expected {tuple(want)}")
    names = [str(p)[:80] for p in response["params"][:20]] + (["..."] if len(response["params"]) > 20 else [])
    lines = lines[:20]
    lines.append(f"你的参数 / your parameters: {', '.join(names) or '(none)'}")
    built = response.get("parts") or []
    if built:
        lines.append("用评分程序的替身建的部件 / parts built with the grader's stand-ins:")
        lines += [f"  {path}: {describe_part(contract, args)}" for path, contract, args in built[:12]]
        if len(built) > 12:
            lines.append(f"  ... ({len(built) - 12} more)")
    return Fault(
        t(
            f"{cls} 的参数与约定不符：属性名、形状，以及 nn.Sequential 里各层的位置（net.0 是第一层）都是约定的一部分",
            f"{cls}'s parameters do not match the contract: attribute names, shapes and the position of each layer in nn.Sequential (net.0 is the first) are all part of it",
        ),
        "\n".join(lines),
    )


class ReferenceEndpoint(Endpoint):
    """Runs requests on the reference solution, loaded from a file in this process."""

    def __init__(self, exercise_id: str, path: str):
        self.exercise_id = exercise_id
        self.namespace = _load_reference(exercise_id, path)

    def request(self, request: dict) -> dict:
        torch.set_grad_enabled(True)
        return ops.execute(self.namespace, request)


def _load_reference(exercise_id: str, path: str):
    import types

    mod = types.ModuleType(f"reference_{exercise_id}")
    mod.__file__ = path
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec")
    saved = standins.install_siblings(exercise_id)  # the classes of earlier exercises; the reference calls no earlier function
    try:
        exec(code, mod.__dict__)
    finally:
        standins.restore_siblings(saved)
    return mod


# --- the submission side ---------------------------------------------------


def _error_info(info: dict) -> tuple[str, str, list]:
    """The child describes its own errors, and a submission can replace the
    describer: take only short text and well-formed lines from it (found by
    tests/attacks/ex0_weighted_sum__huge_exception.py). Its control
    characters were made visible as the message was read (``protocol``)."""
    kind, message = str(info.get("type", "?"))[:200], str(info.get("message", ""))[:2000]
    lines = info.get("lines")
    lines = [pair for pair in lines if isinstance(pair, (list, tuple)) and len(pair) == 2] if isinstance(lines, list) else []
    lines = [(n if type(n) is int else 0, str(line)[:300]) for n, line in lines[-5:]]
    return kind, message, lines


def _describe_error(info: dict, display_name: str) -> Fault:
    kind, message, lines = _error_info(info)
    where = "\n".join(f"  {display_name}, line {n}: {line.strip()}" for n, line in lines)
    if message.startswith("backward(): "):
        return Fault(
            t(
                f"计算梯度（backward）时出错 {kind}；下面是它追溯到的前向计算",
                f"computing the gradients (backward) raised {kind}; below, the forward computation it traces back to",
            ),
            (f"  {kind}: {message}\n" + where).rstrip(),
        )
    if kind == "NotImplementedError":
        return Fault(NOT_IMPLEMENTED, where, not_implemented=True)
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        n, line = (lines or [(0, "")])[0]
        return Fault(
            t(f"语法错误：{display_name} 第 {n} 行", f"syntax error in {display_name}, line {n}"),
            f"  {line.strip()}\n  {kind}: {message}",
        )
    return Fault(
        t(f"你的代码抛出了 {kind}", f"your code raised {kind}"),
        (f"  {kind}: {message}\n" + where).rstrip(),
    )


class _Drain(threading.Thread):
    """Reads a child's stdout and stderr so it never blocks on a full pipe,
    keeping only the first ``cap`` bytes."""

    def __init__(self, fd: int, cap: int):
        super().__init__(daemon=True)
        self.fd, self.cap, self.kept, self.dropped = fd, cap, bytearray(), 0

    def run(self) -> None:
        try:
            while chunk := os.read(self.fd, 1 << 16):
                room = self.cap - len(self.kept)
                self.kept += chunk[:room]
                self.dropped += max(0, len(chunk) - room)
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def text(self) -> str:
        # Shown in the terminal report: control codes in it (ESC, CSI...) could
        # clear the screen or repaint the score lines above it, so they are
        # shown as text, e.g. "\x1b[2J" (found by
        # tests/attacks/ex0_weighted_sum__fake_stdout.py).
        out = visible(self.kept.decode("utf-8", "replace"))
        return out + (f"\n... ({self.dropped} more bytes dropped)" if self.dropped else "")


class SubmissionEndpoint(Endpoint):
    """Talks to one exercise of a submission running in a child process.

    The child may be started ahead (``prestart``), while another exercise's
    checks run, but it imports the file only when this exercise's first check
    asks (``_start``): the import, and every limit of this exercise, run in
    this exercise's own time. It is restarted (the file imported again) if it
    dies or times out, as long as the exercise's time budget lasts.
    """

    def __init__(self, file: ExerciseFile, zygotes: Zygotes, limits: Limits, workdir: str, submission, shared_copy: bool = False, references: dict | None = None):
        """``shared_copy``: children cannot write the folder they import from
        (see ``Submission.private_copy``). ``references``: exercise id ->
        ReferenceEndpoint, where the grader has the solutions: it answers the
        child's questions about earlier exercises' functions (``earlier``)."""
        self.file, self.zygotes, self.limits = file, zygotes, limits
        self.references = references
        self.workdir, self.submission, self.shared_copy = workdir, submission, shared_copy
        self.budget_end = None
        self.final_fault: Fault | None = None  # a fault every further request repeats
        self.req_w = self.resp_r = None
        self.pid: int | None = None
        self.ready = self.importing = False
        self.prestarted = self.retried = False
        self.answered = False  # a child of this exercise has answered a request
        self.finished_drains: list[_Drain] = []
        self.drain: _Drain | None = None
        self.next_id = 0
        self.output = ""

    # - lifecycle -
    def prestart(self) -> None:
        """Start the child now, while the grader does other work: ``_start``
        then finds it forked and set up, waiting for the word to import."""
        if self.file.problem is None and self.final_fault is None and self.req_w is None:
            self.prestarted = True
            try:
                self._spawn()
            except SubmissionFault:
                pass  # _start will say why

    def _out_of_time(self) -> SubmissionFault:
        self.final_fault = Fault(
            t(
                f"这道练习用完了 {self.limits.exercise_seconds:.0f} 秒的时间",
                f"this exercise used up its {self.limits.exercise_seconds:.0f} s of time",
            )
        )
        return SubmissionFault(self.final_fault)

    def _spawn(self) -> None:
        if self.budget_end is not None and time.monotonic() >= self.budget_end:
            raise self._out_of_time()
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        out_r, out_w = os.pipe()
        spec = {
            "exercise": self.file.exercise_id,
            "display_name": self.file.display_name,
            "limits": self.limits.to_dict(),
        }
        try:
            self.pid = self.zygotes.spawn(spec, req_r, resp_w, out_w)
        except ZygoteGone:
            for fd in (req_w, resp_r, out_r):
                os.close(fd)
            raise SubmissionFault(
                Fault(t("评分程序无法为这道练习启动进程", "the grader could not start a process for this exercise"))
            ) from None
        finally:
            for fd in (req_r, resp_w, out_w):
                os.close(fd)
        self.req_w, self.resp_r, self.ready, self.importing = req_w, resp_r, False, False
        self.drain = _Drain(out_r, self.limits.output_bytes)
        self.drain.start()

    def _start(self) -> None:
        if self.file.problem is not None:
            self.final_fault = Fault(self.file.problem)
        if self.final_fault:
            raise SubmissionFault(self.final_fault)
        if self.req_w is None:
            self._spawn()
        if self.ready:
            return
        if not self.importing:
            # This exercise begins now: its clock starts, and its code runs
            # only once nothing of an earlier exercise is left running.
            now = time.monotonic()
            if self.budget_end is None:
                self.budget_end = now + self.limits.exercise_seconds
            if now >= self.budget_end:
                self._stop()
                raise self._out_of_time()
            if self.prestarted:
                # Started ahead, it may have been stopped (SIGSTOP) by the
                # exercise before it: woken once that exercise is over.
                self.zygotes.wake(self.pid)
            else:
                self.zygotes.settle()
            self.import_deadline = min(time.monotonic() + self.limits.import_seconds, self.budget_end)
            self.importing = True
            word = {
                "op": "import",
                "private_dir": self.submission.private_copy(self.workdir, self.shared_copy),
                # The grading process answers the earlier exercises' functions (earlier.py).
                "earlier": self.references is not None,
            }
            try:
                protocol.send(self.req_w, word)
            except OSError:
                pass  # the child is dead: receive() below says so
            if not self._heard_the_word():
                return self._start()
        try:
            ready = self._receive(self.import_deadline)
        except protocol.Timeout:
            self._stop()
            self.final_fault = Fault(
                t(
                    f"导入文件超过了 {self.limits.import_seconds:.0f} 秒：模块顶层是否有死循环或很慢的计算？",
                    f"importing the file took over {self.limits.import_seconds:.0f} s: is there an endless loop or slow work at the top level?",
                )
            )
            raise SubmissionFault(self.final_fault) from None
        except (protocol.Closed, protocol.ProtocolError):
            self._stop()
            if self.prestarted and not self.retried:
                # A child started ahead may have been killed by the exercise
                # graded before it: that is not this exercise's fault. Once more.
                self.retried = True
                return self._start()
            self.final_fault = Fault(
                t("导入文件时进程意外结束（退出、崩溃或内存超限）", "the process ended while importing the file (exit, crash or memory limit)"),
                self.output.strip()[-800:],
            )
            raise SubmissionFault(self.final_fault) from None
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            error = ready.get("error") if isinstance(ready, dict) else None
            self._stop()
            self.final_fault = _describe_error(error if isinstance(error, dict) else {}, self.file.display_name)
            if not self.final_fault.not_implemented:
                self.final_fault.message = t(
                    "导入文件失败：" + self.final_fault.message.zh, "importing the file failed: " + self.final_fault.message.en
                )
            raise SubmissionFault(self.final_fault)
        self.ready = True

    def _receive(self, deadline: float):
        """The child's next message but its questions about earlier
        exercises' functions, which are answered here (``earlier.answer``)."""
        while True:
            message = protocol.receive(self.resp_r, deadline)
            if not (isinstance(message, dict) and "earlier" in message and self.references is not None):
                return message
            protocol.send(self.req_w, earlier.answer(self.references, self.file.exercise_id, message))

    def _heard_the_word(self) -> bool:
        """The child says it got the word before it imports anything. A child
        that does not say so within ``WORD_SECONDS`` is stopped or wedged,
        not slow: it is replaced once (False: ``_start`` again), and after
        that the exercise fails. A child that died says so in ``_start``."""
        try:
            heard = protocol.receive(self.resp_r, min(time.monotonic() + WORD_SECONDS, self.import_deadline))
        except (protocol.Closed, protocol.ProtocolError):
            return True  # _start reads the same end of the pipe, and says why
        except protocol.Timeout:
            self._stop()
            if not self.retried:
                self.retried = True
                return False
            self.final_fault = Fault(
                t(
                    f"进程 {WORD_SECONDS:.0f} 秒内没有开始导入文件（被暂停了？）",
                    f"the process did not begin to import the file within {WORD_SECONDS:.0f} s (was it stopped?)",
                )
            )
            raise SubmissionFault(self.final_fault) from None
        if heard != {"heard": True}:
            self._stop()
            self.final_fault = Fault(t("返回的结果格式不对", "the response is malformed"))
            raise SubmissionFault(self.final_fault)
        return True

    def _stop(self) -> None:
        """Kill the child and everything it started; keep what it printed."""
        for fd in (self.req_w, self.resp_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        # Not ready any more: the next request starts a new child (without
        # this it wrote to the closed pipe, and every later check of the
        # exercise "failed by itself" with a TypeError).
        self.req_w = self.resp_r = None
        self.ready = self.importing = False
        if self.pid is not None:
            self.zygotes.release(self.pid)
            self.pid = None
        if self.drain is not None:
            # Its output is complete once the child and all it started are
            # dead; read it in finish(), so nobody waits for the kill now.
            self.finished_drains.append(self.drain)
            self.drain = None

    def close(self) -> None:
        self._stop()

    def finish(self) -> str:
        """Everything the exercise's children printed (call after the zygote's kill_all)."""
        for drain in self.finished_drains:
            drain.join(timeout=5)
            self.output += drain.text()
        self.finished_drains.clear()
        return self.output

    # - requests -
    def request(self, request: dict) -> dict:
        if not self.ready:
            self._start()
        self.next_id += 1
        request = dict(request, id=self.next_id)
        deadline = min(time.monotonic() + self.limits.request_seconds, self.budget_end)
        try:
            protocol.send(self.req_w, request)
            while True:
                response = self._receive(deadline)
                if isinstance(response, dict) and response.get("id") == self.next_id:
                    break
        except (protocol.Closed, BrokenPipeError, OSError):
            if self.prestarted and not self.retried and not self.answered:
                # Started ahead, it was killed before its first request, maybe
                # by the exercise graded before it (after its import had
                # finished): not this exercise's fault. Once more, afresh.
                self._stop()
                self.retried = True
                return self.request(request)
            self._stop()
            raise SubmissionFault(
                Fault(
                    t("进程意外结束（调用了退出、崩溃或内存超限）", "the process ended unexpectedly (an exit call, a crash or the memory limit)"),
                )
            ) from None
        except protocol.Timeout:
            self._stop()
            raise SubmissionFault(
                Fault(
                    t(
                        f"超时：{self.limits.request_seconds:.0f} 秒内没有算完（死循环？）",
                        f"time limit: no answer within {self.limits.request_seconds:.0f} s (an endless loop?)",
                    )
                )
            ) from None
        except protocol.ProtocolError as exc:
            self._stop()
            raise SubmissionFault(
                Fault(t("返回的结果无法安全读取", "the result could not be read safely"), str(exc))
            ) from None
        self.answered = True
        if "error" in response:
            error = response["error"]
            raise SubmissionFault(_describe_error(error if isinstance(error, dict) else {}, self.file.display_name))
        return _validated(response)


def _bad_type(name: str) -> SubmissionFault:
    return SubmissionFault(
        Fault(
            t(f"返回的不是普通张量，而是 {name}", f"returned {name}, not a plain torch.Tensor"),
        )
    )


def _tensor(value, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, dict) and "bad_type" in value:
        raise _bad_type(str(value["bad_type"])[:200])
    if type(value) is torch.nn.Parameter:
        value = value.detach()
    if type(value) is not torch.Tensor:
        raise _bad_type(type(value).__name__)
    if value.layout != torch.strided or value.is_quantized or value.device.type != "cpu":
        raise _bad_type(f"a {value.layout} tensor on {value.device}")
    return value


def _validated(response: dict) -> dict:
    """Check the shape of a child's response before any check sees it."""
    if "value" in response:
        value = response["value"]
        args = response.get("args")
        if not isinstance(args, list):
            raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
        args = [a if type(a) in (int, float, bool) or a is None else _tensor(a) for a in args]
        # Every exercise function returns a tensor: a number is a wrong answer, not a check's problem.
        if type(value) in (int, float, bool):
            raise _bad_type(type(value).__name__)
        return {"value": _tensor(value), "args": args}
    if "missing" in response:
        if not isinstance(response.get("missing"), list) or not isinstance(response.get("mismatched"), dict):
            raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
        return dict(response, parts=_parts(response.get("parts")), params=[str(p) for p in response.get("params", [])][:1000])
    if "outs" in response:
        outs = response.get("outs")
        grads = response.get("grads")
        if not isinstance(outs, list) or not isinstance(grads, dict):
            raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
        return {
            "outs": [[_tensor(v, allow_none=True) for v in o] if isinstance(o, list) else _tensor(o) for o in outs],
            "grads": {str(k): _tensor(v, allow_none=True) for k, v in grads.items()},
            "input_grad": _tensor(response.get("input_grad"), allow_none=True),
            "params": [str(p) for p in response.get("params", [])][:1000],
            "parts": _parts(response.get("parts")),
        }
    raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))


def _plain_value(v):
    """An argument a stand-in was built with, as the feedback shows it."""
    if v is None or type(v) in (int, float, bool):
        return v
    return str(v)[:60]


def _parts(parts) -> list:
    """The stand-ins a child says its module holds, taken apart defensively
    (the child can send anything): [path, contract class, {argument: value}]."""
    if not isinstance(parts, list):
        raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
    out = []
    for part in parts[:1000]:
        if not (isinstance(part, list) and len(part) == 3 and isinstance(part[2], dict)):
            raise SubmissionFault(Fault(t("返回的结果格式不对", "the response is malformed")))
        path, contract, args = part
        out.append([str(path)[:100], str(contract)[:40], {str(k)[:40]: _plain_value(v) for k, v in list(args.items())[:8]}])
    return out
