"""What a child prints, read on the side and shown safely."""

import os
import threading

from grader.text import visible


class Drain(threading.Thread):
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
