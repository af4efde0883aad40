"""``{cli-help} grade``: the grader's own ``--help`` text for a command, from its argparse parser."""
import os
from unittest import mock

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def help_text(verb: str | None = None) -> str:
    from grader.cli import _parser

    parser = _parser()
    if verb:
        (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        parser = sub.choices[verb]
    with mock.patch.dict(os.environ, {"COLUMNS": "80"}):
        return parser.format_help()


class CliHelp(SphinxDirective):
    optional_arguments = 1

    def run(self):
        verb = self.arguments[0] if self.arguments else None
        try:
            text = help_text(verb)
        except KeyError:
            raise self.error(f"python -m grader has no command {verb!r}") from None
        block = nodes.literal_block(text, text, language="text")
        self.set_source_info(block)
        return [block]


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
