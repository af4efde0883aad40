"""The command line's reference, made from its argparse parser while the site
builds, so that it cannot go stale.

``{cli-help} grade`` shows the ``--help`` text of one command (none: of
``python -m grader`` itself); ``{cli-commands}`` shows every command's, in the
parser's order (a command's own sub-commands too, should one get any): a command added to
``grader/cli.py`` or ``grader/teacher/verbs.py`` appears without an edit to
any page."""

import argparse
import os
from unittest import mock

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's commands by name, in the order they were added ({} when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def commands(parser: argparse.ArgumentParser | None = None, path: tuple[str, ...] = ()):
    """(words, parser) for every command below ``parser`` (the grader's), depth first."""
    if parser is None:
        from grader.cli import _parser

        parser = _parser()
    for name, sub in _subcommands(parser).items():
        yield (*path, name), sub
        yield from commands(sub, (*path, name))


def help_text(parser: argparse.ArgumentParser) -> str:
    """``--help`` as a terminal of 80 columns prints it, whatever the terminal building the site."""
    with mock.patch.dict(os.environ, {"COLUMNS": "80"}):
        return parser.format_help()


def _literal(directive: SphinxDirective, text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text, language="text")
    directive.set_source_info(block)
    return block


class CliHelp(SphinxDirective):
    optional_arguments = 1

    def run(self):
        from grader.cli import _parser

        if not self.arguments:
            return [_literal(self, help_text(_parser()))]
        found = dict(commands())
        words = tuple(self.arguments[0].split())
        if words not in found:
            raise self.error(f"python -m grader has no command {self.arguments[0]!r}")
        return [_literal(self, help_text(found[words]))]


class CliCommands(SphinxDirective):
    """Every command: its name as a rubric, then its ``--help``."""

    def run(self):
        out = []
        for words, parser in commands():
            title = "python -m grader " + " ".join(words)
            rubric = nodes.rubric(title, "", nodes.literal(title, title))
            rubric["ids"].append("command-" + "-".join(words))
            out += [rubric, _literal(self, help_text(parser))]
        return out


def setup(app):
    app.add_directive("cli-help", CliHelp)
    app.add_directive("cli-commands", CliCommands)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
