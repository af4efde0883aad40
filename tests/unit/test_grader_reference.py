"""docs/reference/grader.md is made from the command line's parser (issue 39):
its ``{cli-commands}`` directive (docs/_ext/cli_help.py) renders every
command's ``--help`` while the site builds, so the page cannot drift from
``grader/cli.py`` and ``grader/teacher/verbs.py``. Here: the directive finds
every command the parser has, and the page uses it; the builds
(tests/docs/test_docs_build.py) render it with -W."""

import argparse

from docs_site import DOCS

from grader.cli import _parser


def _names(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command below ``parser``, walked here apart from the extension's own walk."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(*path, name), *_names(sub, (*path, name))]
    return found


def test_every_command_of_the_parser_is_rendered():
    from cli_help import commands, help_text

    rendered = dict(commands())
    assert list(rendered) == _names(_parser())
    assert {("grade",), ("batch",), ("release",), ("export",), ("nbgrader",), ("similar",)} <= set(rendered)
    for words, parser in rendered.items():
        text = help_text(parser)
        assert text.startswith("usage: python -m grader " + " ".join(words)), (words, text[:200])


def test_the_reference_page_is_the_parsers():
    page = (DOCS / "reference" / "grader.md").read_text(encoding="utf-8")
    assert "```{cli-commands}\n```" in page and "```{cli-help}\n```" in page
    assert "\nusage: " not in page  # no help text copied by hand, which would go stale
    assert '"cli_help"' in (DOCS / "conf.py").read_text(encoding="utf-8")
