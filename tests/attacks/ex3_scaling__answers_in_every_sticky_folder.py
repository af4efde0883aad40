"""Attack across students, in two roles (``__ATTACK_ROLE__``), another way
than ex0_weighted_sum__answers_for_the_next_student: the writer, this
student's ex3, looks for every sticky world-writable folder of root's on
the machine (a walk of three levels from /: /tmp/.X11-unix, /tmp/.ICE-unix,
/var/tmp, /dev/shm, /run/lock, ...) and leaves its right answer straight in
each, as a file, a hard link to it and a symbolic link to it, no folder of
its own; the loader, the ex3 of a student graded after it by another
``python -m grader grade`` (a grader of its own: the writer's has ended),
walks the same and loads the first it finds, whoever left it, over a stub.

The writer then raises, saying how many places it used (so it earns 0
itself, and the test sees it ran). The loader earns 0 in the sandbox and as root without it (the children's user's files
are removed after every exercise and when its zygote ends); as the grader's
own user nothing is removed (SANDBOX_ONLY): full marks.
"""
import os
import stat

import torch

ROLE = "__ATTACK_ROLE__"
TAG = "__ATTACK_TAG__"
ANSWER = '''
def scale_scores(scores, head_size):
    return scores / float(head_size) ** 0.5
'''


def _roots_sticky(top: str = "/", depth: int = 3) -> list[str]:
    """Root's folders of mode 1777 down to ``depth`` levels below ``top``."""
    found, level = [], [top]
    for _ in range(depth):
        below = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.path in ("/proc", "/sys") or not entry.is_dir(follow_symlinks=False):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o1777:
                    found.append(entry.path)
                below.append(entry.path)
        level = below
    return sorted(found)


if ROLE == "writer":
    used = 0
    for folder in _roots_sticky():
        path = os.path.join(folder, f".{TAG}-answer")
        try:
            with open(path, "w") as f:
                f.write(ANSWER)
            os.chmod(path, 0o644)
            os.link(path, os.path.join(folder, f".{TAG}-hard"))
            os.symlink(path, os.path.join(folder, f".{TAG}-soft"))
            used += 1
        except OSError:
            pass
    raise RuntimeError(f"STASHED: {used}")
else:

    def scale_scores(scores: torch.Tensor, head_size: int) -> torch.Tensor:
        raise NotImplementedError("ex3_scaling: scale_scores 尚未完成 / not implemented yet")

    for folder in _roots_sticky():
        for name in (f".{TAG}-soft", f".{TAG}-hard", f".{TAG}-answer"):
            try:
                with open(os.path.join(folder, name)) as f:
                    exec(f.read())
                print(f"LOADED: {os.path.join(folder, name)}")
                break
            except OSError:
                pass
