"""``attention-grader start DIR`` (``python -m grader start DIR``): a student's
own copy of the exercises, to work in.

Installed from the wheel, the course has no folder of its own: the stubs and
notebooks are package data (``grader/course_files/``), and ``grade`` in an
empty folder finds nothing to grade. ``start`` writes them out as the
student edition lays them out, ``DIR/exercises/<id>.py`` and
``DIR/notebooks/<id>.ipynb``, so that ``grade`` (whose folder is
``exercises`` by default) and ``check("<id>")`` in a notebook of
``DIR/notebooks`` work there as in the edition. It never writes over a
file: a student's work is not lost to a second ``start``.
"""

import os
import shutil
import sys

from grader.exercises import EXERCISES
from grader.files import EXERCISES_DIR, NOTEBOOKS_DIR, replacing


def files() -> list[tuple[str, str]]:
    """(where the course keeps it, where it goes below DIR), for every file ``start`` writes."""
    out = [(os.path.join(EXERCISES_DIR, ex.filename), os.path.join("exercises", ex.filename)) for ex in EXERCISES]
    out += [(os.path.join(NOTEBOOKS_DIR, ex.notebook), os.path.join("notebooks", ex.notebook)) for ex in EXERCISES]
    return out


def main(folder: str, prog: str = "python -m grader") -> int:
    wanted = files()
    absent = [source for source, _ in wanted if not os.path.isfile(source)]
    if absent:
        print(f"{prog}: 错误 / error: 这份课程缺少 / this course lacks: {', '.join(absent)}", file=sys.stderr)
        return 2
    there = [rel for _, rel in wanted if os.path.lexists(os.path.join(folder, rel))]
    if there:
        shown = ", ".join(os.path.join(folder, rel) for rel in there[:3]) + (" …" if len(there) > 3 else "")
        print(
            f"{prog}: 错误 / error: {len(there)} 个文件已经在了，一个也没改 / {len(there)} files are there already, "
            f"and none was changed: {shown}\n"
            f"换一个文件夹，或者在这里接着做 / choose another folder, or go on working in this one",
            file=sys.stderr,
        )
        return 1
    for source, rel in wanted:
        with replacing(os.path.join(folder, rel)) as tmp:
            shutil.copyfile(source, tmp)
    print(
        f"练习在 {os.path.join(folder, 'exercises')}，笔记本在 {os.path.join(folder, 'notebooks')}。\n"
        f"The exercises are in {os.path.join(folder, 'exercises')}, the notebooks in {os.path.join(folder, 'notebooks')}.\n"
        f"下一步 / next:\n"
        f"    cd {folder}\n"
        f"    {prog} grade            # 给 exercises/ 评分 / grades exercises/\n"
        f"    {prog} grade --watch    # 每次保存都重新评分 / grades again on each save\n"
        f'    在 notebooks/ 的笔记本里 / in a notebook of notebooks/: check("ex0_weighted_sum")'
    )
    return 0
