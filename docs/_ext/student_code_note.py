"""A note before each example that runs the student's own code.

The docs build runs every ``>>>`` example against the reference solutions (see
``computed.py``), but on a student's machine ``from ex0_weighted_sum import
weighted_sum`` imports *their* file, which raises ``NotImplementedError``
until the exercise is done. So that a student who tries an example early is
not puzzled, each example that imports an exercise module gets a short
bilingual note just before it, naming what it uses and from which file:

    这个例子用到你写的 ``weighted_sum``（exercises/ex0_weighted_sum.py）：……

The names come from the example's own import lines, so the note cannot drift
from the code. Examples that use only torch get no note.
"""

import ast
import doctest

from bilingual import lang_block
from computed import is_doctest
from docutils import nodes

from grader.exercises import IDS

# After computed.run_page (priority 500), which collects and runs the page's
# doctests on doctree-read: the note goes in once they have run, and it holds
# no literal block, so it could not be taken for an example either way.
PRIORITY = 600


def student_imports(source: str) -> dict[str, list[str]]:
    """The exercise modules a ``>>>`` example imports, each with the names it takes.

    ``from ex4_masking import causal_mask, causal_weights`` gives
    ``{"ex4_masking": ["causal_mask", "causal_weights"]}``; ``import ex0_weighted_sum``
    gives the module's own name. In the order of the example.
    """
    found: dict[str, list[str]] = {}
    for example in doctest.DocTestParser().get_examples(source):
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue  # computed.py reports a broken example; not this note's business
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module in IDS:
                found.setdefault(node.module, []).extend(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in IDS:
                        found.setdefault(alias.name, []).append(alias.name)
    return found


def _names_and_files(imports: dict[str, list[str]], lang: str) -> list[nodes.Node]:
    """``a``、``b``（exercises/x.py）和 ``c``（exercises/y.py） / ``a`` and ``b`` (exercises/x.py) and ..."""
    name_sep, group_sep, file_open, file_close = ("、", "和 ", "（", "）") if lang == "zh" else (", ", " and ", " (", ")")
    out: list[nodes.Node] = []
    for g, (module, names) in enumerate(imports.items()):
        if g:
            out.append(nodes.Text(group_sep))
        for i, name in enumerate(names):
            if i:
                last = i == len(names) - 1
                out.append(nodes.Text(name_sep if lang == "zh" or not last else " and "))
            out.append(nodes.literal(name, name))
        path = f"exercises/{module}.py"
        out += [nodes.Text(file_open), nodes.literal(path, path), nodes.Text(file_close)]
    return out


def note(imports: dict[str, list[str]]) -> nodes.container:
    """The note for an example that imports ``imports`` (module -> names)."""
    several_files = len(imports) > 1
    several_names = several_files or len(next(iter(imports.values()))) > 1
    zh = lang_block(lang="zh")
    zh += nodes.paragraph(
        "",
        "",
        nodes.Text("这个例子用到你写的 "),
        *_names_and_files(imports, "zh"),
        nodes.Text(f"：做完{'这几道题' if several_files else '这道题'}之前，{'它们' if several_names else '它'}会报 "),
        nodes.literal("NotImplementedError", "NotImplementedError"),
        nodes.Text("。"),
    )
    en = lang_block(lang="en")
    en += nodes.paragraph(
        "",
        "",
        nodes.Text("This example runs your "),
        *_names_and_files(imports, "en"),
        nodes.Text(f": until you finish {'these exercises' if several_files else 'the exercise'}, {'they raise' if several_names else 'it raises'} "),
        nodes.literal("NotImplementedError", "NotImplementedError"),
        nodes.Text("."),
    )
    return nodes.container("", zh, en, classes=["student-code-note"])


def add_notes(app, doctree):
    for block in list(doctree.findall(is_doctest)):
        imports = student_imports(block.astext())
        if imports:
            block.parent.insert(block.parent.index(block), note(imports))


def setup(app):
    app.connect("doctree-read", add_notes, priority=PRIORITY)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
