"""Attack: ignore SIGTERM (and every other signal that can be ignored or
blocked), then loop forever inside the function.

Each call hits the 10 s request limit and the child is killed with SIGKILL,
which cannot be ignored: 0 points, and no process is left. The process is
named after the test's tag so the test can see that it is gone.
"""
import ctypes
import os
import signal
import time

import torch

TAG = "__ATTACK_TAG__"
ctypes.CDLL(None).prctl(15, TAG.encode(), 0, 0, 0)  # PR_SET_NAME: /proc/PID/comm
os.environ["ATTACK_TAG"] = TAG

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE, signal.SIGALRM, signal.SIGUSR1, signal.SIGUSR2, signal.SIGXCPU):
    signal.signal(sig, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())


def weighted_sum(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    while True:  # sleeps rather than spins: this machine is shared
        time.sleep(0.05)
