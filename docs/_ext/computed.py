"""Numbers in the text come from running the project's code at build time.

Each page has one Python namespace. In page order the build runs:

- ``{compute}`` blocks: code that is run but not shown (it may import the
  reference from ``solutions/``);
- every code block that starts with ``>>>``: a doctest, shown and checked;
- the ``{num}`` role. ``{num}`[0.665, 0.245] <weights>``` shows the text and
  checks that every number in it is ``weights`` rounded to the digits shown;
  ``{num}`expr``` or ``{num}`expr|.2f``` shows the value itself.

Every page's namespace has ``experiment("ex3_scaling")``: the variables of
that exercise's experiment after the run the page shows (``experiment.py``).
A number that sends the reader to the experiment is quoted from there.

A doctest that fails, code that raises, or text that disagrees with the
computation is a warning, and the docs are built with ``-W``: the build fails.
So is a name quoted by ``{num}`` before and after code that gives it another
value: the page would quote one name for two things (an answer quoting "the
model above" after the next block reused its variable for another model).
"""

import ast
import doctest
import io
import math
import re
import traceback
import types

from docutils import nodes
from experiment import experiment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

DOCTEST_FLAGS = doctest.ELLIPSIS


class compute_node(nodes.General, nodes.Element):
    """Code to run; removed from the page once it has run."""


class num_node(nodes.Inline, nodes.TextElement):
    """A number in the text, checked against (or replaced by) a computation."""


class ComputeDirective(SphinxDirective):
    has_content = True

    def run(self):
        node = compute_node(code="\n".join(self.content), lineno=self.lineno)
        self.set_source_info(node)
        return [node]


def num_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    m = re.fullmatch(r"(.*\S)\s*<([^<>]+)>", text, flags=re.S)
    shown, expr = (m.group(1), m.group(2)) if m else (None, text)
    node = num_node(rawtext, shown or "", shown=shown, expr=expr.strip(), lineno=lineno)
    return [node], []


# --- running code -------------------------------------------------------------


def run_doctest(source: str, namespace: dict, name: str, lineno: int = 0) -> str:
    """Run the ``>>>`` examples in ``source``; return the failure report ('' if none)."""
    test = doctest.DocTestParser().get_doctest(source, namespace, name, name, lineno)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS, verbose=False)
    runner.run(test, out=out.write, clear_globs=False)
    namespace.update(test.globs)  # DocTest ran in a copy: later blocks see what this one defined
    return out.getvalue()


def run_code(code: str, namespace: dict, name: str) -> str:
    """Run a ``{compute}`` block; return the traceback ('' if it ran)."""
    try:
        exec(compile(code, name, "exec"), namespace)
    except Exception:  # noqa: BLE001 - reported as a build warning
        return traceback.format_exc(limit=-3)
    return ""


def is_doctest(node) -> bool:
    return isinstance(node, nodes.literal_block) and node.astext().lstrip().startswith(">>>")


# --- numbers ------------------------------------------------------------------

_NUMBER = re.compile(r"[-−]?(?:\d+(?:\.\d+)?|inf|∞)")


def flat(value) -> list[float]:
    """A number, a tensor or nested lists of them as one flat list of floats."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().flatten().tolist()
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flat(v)]
    return [float(value)]


def _parse(token: str) -> tuple[float, int]:
    token = token.replace("−", "-").replace("∞", "inf")
    decimals = len(token.split(".")[1]) if "." in token else 0
    return float(token), decimals


def disagreement(shown: str, value) -> str:
    """Why ``shown`` is not ``value`` rounded to the digits it shows ('' if it is)."""
    want = flat(value)
    tokens = _NUMBER.findall(shown)
    if len(tokens) != len(want):
        return f"the text has {len(tokens)} numbers, the computation {len(want)}: {want}"
    for token, v in zip(tokens, want):
        x, decimals = _parse(token)
        if math.isinf(x) or math.isinf(v):
            ok = x == v
        else:
            ok = abs(x - v) <= 0.5 * 10**-decimals * (1 + 1e-9) + 1e-12
        if not ok:
            return f"{token} is not {v!r} rounded to {decimals} decimals"
    return ""


def shown_value(value, spec: str = "") -> str:
    """How a computed value appears in the text when no text is given."""
    if isinstance(value, str):
        return value
    if hasattr(value, "detach") and value.dim() == 0:
        value = value.item()
    if hasattr(value, "detach") or isinstance(value, (list, tuple)):
        items = value.tolist() if hasattr(value, "detach") else value
        return "[" + ", ".join(shown_value(v, spec) for v in items) + "]"
    if isinstance(value, bool) or (isinstance(value, int) and not spec):
        return str(value)
    return format(value, spec or ".3f")


# --- the pass over a page ------------------------------------------------------


def quoted_names(expr: str) -> set[str]:
    """The page's names a ``{num}`` expression reads."""
    try:
        tree = ast.parse(expr.rsplit("|", 1)[0] if "|" in expr else expr, mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        if hasattr(a, "detach") and hasattr(b, "detach"):
            import torch

            return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are different values
        return False


class Quotes:
    """What each name the text quoted stood for when it was first quoted."""

    def __init__(self):
        self.first: dict[str, tuple[object, object]] = {}  # name -> (value, line)

    def changed(self, expr: str, namespace: dict, line) -> list[str]:
        problems = []
        for name in sorted(quoted_names(expr)):
            if name not in namespace or callable(namespace[name]) or isinstance(namespace[name], types.ModuleType):
                continue  # functions and modules: the same name for the same thing
            value = namespace[name]
            if name not in self.first:
                self.first[name] = (value, line)
            elif not _same(self.first[name][0], value):
                problems.append(f"`{name}` was quoted at line {self.first[name][1]} and has another value now: the page quotes one name for two things (give the new value its own name)")
        return problems


def page_namespace() -> dict:
    """What a page's code starts with (the tests run the pages' code in it too)."""
    return {"__name__": "docs_page", "experiment": experiment}


def run_page(app, doctree):
    docname = app.env.docname
    where = app.env.doc2path(docname)
    namespace = page_namespace()
    quotes = Quotes()
    todo = [n for n in doctree.findall(lambda n: isinstance(n, (compute_node, num_node)) or is_doctest(n))]
    for node in todo:
        location = (docname, node.get("lineno") or node.line)
        if isinstance(node, compute_node):
            problem = run_code(node["code"], namespace, f"{where}:{node['lineno']} {{compute}}")
            if problem:
                logger.warning("{compute} block raised:\n%s", problem, location=location)
            node.parent.remove(node)
        elif isinstance(node, num_node):
            for problem in quotes.changed(node["expr"], namespace, location[1]):
                logger.warning("{num}`%s`: %s", node["expr"], problem, location=location)
            node.replace_self(_resolve_num(node, namespace, location))
        else:
            report = run_doctest(node.astext(), namespace, f"{where}", node.line or 0)
            if report:
                logger.warning("doctest failed:\n%s", report, location=node)


def _resolve_num(node, namespace, location):
    expr, spec = node["expr"], ""
    if node["shown"] is None and "|" in expr:
        expr, spec = (s.strip() for s in expr.rsplit("|", 1))
    try:
        value = eval(expr, namespace)  # noqa: S307 - the docs' own expressions
    except Exception as e:  # noqa: BLE001 - a page's expression that fails is a warning, not a failed build
        logger.warning("{num}`%s` raised %s: %s", expr, type(e).__name__, e, location=location)
        return nodes.Text(node["shown"] or "?")
    if node["shown"] is None:
        # A number stays on one line; a computed sentence wraps like the text around it.
        classes = ["computed", "computed-text"] if isinstance(value, str) else ["computed"]
        return nodes.inline("", shown_value(value, spec), classes=classes)
    problem = disagreement(node["shown"], value)
    if problem:
        logger.warning("the text says %r but %s gives %s: %s", node["shown"], expr, shown_value(value), problem, location=location)
    return nodes.inline("", node["shown"], classes=["computed"])


def setup(app):
    app.add_node(compute_node)
    app.add_node(num_node)
    app.add_directive("compute", ComputeDirective)
    app.add_role("num", num_role)
    app.connect("doctree-read", run_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
