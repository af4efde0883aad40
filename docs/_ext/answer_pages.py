"""The teacher edition's answer pages, ``docs/answers/<id>.md``: one per row of
the course's table (``grader/exercises.py``), all the same but for the id.

They are not kept in git (docs/.gitignore): at ``builder-inited`` each page
is written from ``PAGE`` where it is missing or differs, and a page of an id
the table no longer has is removed when it is still exactly what ``PAGE``
would make of it (a page edited by hand is left alone, and then fails the
teacher build as a page in no toctree). ``docs/answers/index.md`` lists them
with ``{exercise-toctree}``; the student edition excludes the folder
(conf.py), so the pages are never read there.
"""

from pathlib import Path

from grader.exercises import IDS
from grader.files import write_atomically

ANSWERS = Path(__file__).resolve().parents[1] / "answers"

PAGE = """\
# {id} 参考答案 · {id}: reference solution

:::{zh}
练习页：{ref}`{id}`。学生要写的部分在 `# BEGIN SOLUTION` 和 `# END SOLUTION` 之间。
:::

:::{en}
The exercise page: {ref}`{id}`. What students write is between `# BEGIN SOLUTION` and `# END SOLUTION`.
:::

```{literalinclude} ../../solutions/{id}.py
:language: python
```

## 隐藏检查 · Hidden checks

:::{zh}
学生版里没有这些{gls}`检查`，只有它们的总分，显示为 (+n)。
:::

:::{en}
The student edition does not have these checks, only their total, shown as (+n).
:::

```{check-list} hidden {id}
```

## 公开检查 · Public checks

:::{zh}
学生版里也有的检查。
:::

:::{en}
The checks the student edition has too.
:::

```{check-list} public {id}
```
"""


def page(exercise_id: str) -> str:
    """The text of the answer page of ``exercise_id``."""
    return PAGE.replace("{id}", exercise_id)


def write_pages(folder: Path = ANSWERS, ids: tuple[str, ...] = IDS) -> list[Path]:
    """Write every missing or different page in ``folder``, remove the
    generated pages of ids not in ``ids``; the paths written or removed."""
    changed = []
    for exercise_id in ids:
        path = folder / f"{exercise_id}.md"
        text = page(exercise_id)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            write_atomically(str(path), text)
            changed.append(path)
    for path in sorted(folder.glob("ex*.md")):
        if path.stem not in ids and path.read_text(encoding="utf-8") == page(path.stem):
            path.unlink()
            changed.append(path)
    return changed


def _on_builder_inited(app):
    write_pages()


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
