"""The connection to one child process: its pipes, what it prints, and how
far it has come (forked, importing, ready). It knows nothing of time
budgets or retries: ``submission_endpoint`` decides those."""

import enum
import os
from collections.abc import Callable

from grader.authoring.checking import Fault, SubmissionFault
from grader.child import protocol
from grader.child.zygote import ZygoteGone, Zygotes
from grader.engine.child_output import Drain
from grader.text import t


class Phase(enum.Enum):
    FORKED = "forked"  # set up, waiting for the word to import
    IMPORTING = "importing"  # told to import; its "ready" (or error) is still to come
    READY = "ready"  # imported: it answers requests


class ChildConnection:
    """One child forked by the zygote for an exercise. ``answer_earlier``,
    when given, answers the child's questions about earlier exercises'
    functions (``earlier``) as they arrive among its replies."""

    def __init__(self, zygotes: Zygotes, spec: dict, output_bytes: int, answer_earlier: Callable[[dict], dict] | None):
        self.zygotes, self.answer_earlier = zygotes, answer_earlier
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            self.pid: int = zygotes.spawn(spec, req_r, resp_w, out_w)
        except ZygoteGone:
            for fd in (req_w, resp_r, out_r):
                os.close(fd)
            raise SubmissionFault(Fault(t("评分程序无法为这道练习启动进程", "the grader could not start a process for this exercise"))) from None
        finally:
            for fd in (req_r, resp_w, out_w):
                os.close(fd)
        self.req_w, self.resp_r, self.phase = req_w, resp_r, Phase.FORKED
        self.drain = Drain(out_r, output_bytes)
        self.drain.start()

    def send(self, message: dict) -> None:
        # The checks' inputs reach the child in the layout they were drawn in
        # (a transposed or expanded view is an input the stubs allow).
        protocol.send(self.req_w, message, layouts=True)

    def receive_raw(self, deadline: float):
        """The child's next message, whatever it is."""
        return protocol.receive(self.resp_r, deadline)

    def receive(self, deadline: float):
        """The child's next message but its questions about earlier
        exercises' functions, which are answered here."""
        while True:
            message = protocol.receive(self.resp_r, deadline)
            if not (isinstance(message, dict) and "earlier" in message and self.answer_earlier is not None):
                return message
            protocol.send(self.req_w, self.answer_earlier(message))

    def exchange(self, request: dict, deadline: float):
        """Send ``request`` and return the reply that carries its id (older replies are dropped)."""
        self.send(request)
        while True:
            response = self.receive(deadline)
            if isinstance(response, dict) and response.get("id") == request["id"]:
                return response

    def stop(self) -> Drain:
        """Kill the child and everything it started. Its output is complete
        once they are all dead: the drain returned is read later, so nobody
        waits for the kill now."""
        for fd in (self.req_w, self.resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.zygotes.release(self.pid)
        return self.drain
