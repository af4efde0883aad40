"""What a teacher's command is asked to do, as one typed object: the part
every command's options share.

Each command's options are a frozen dataclass made from ``CommandOptions``,
beside the work that reads them (``BatchOptions`` in batch/options.py,
``SimilarOptions`` in report/similar.py, ...): a command's defaults (such as
similar's THRESHOLD) and its messages stay with the command, and this module
imports nothing of the grader, so every command may import it. ``run(args)``
makes the object once, with ``from_namespace``, from argparse's namespace (or
a program builds one directly), and hands it to the command's work.

A value a command cannot use is an ``OptionError`` when the object is built,
with the bilingual message the teacher reads; ``run`` prints it as the
command's usage error (exit status 2). Whether the files the options name
exist is for the command's work to find out.

An option is named in a message as the teacher types it (``--inputs-seed``),
but an option without a default by its field's name (``out``, ``dir``), and a
True-or-False option, which only a program can get wrong, by its field's name
too.
"""

import dataclasses
import os
from dataclasses import dataclass
from typing import Self


class OptionError(ValueError):
    """An option a command cannot use: its message is what the teacher reads."""


@dataclass(frozen=True)
class CommandOptions:
    @classmethod
    def from_namespace(cls, namespace) -> Self:
        """The options in argparse's namespace (or any object with them as
        attributes; others, such as the command's name, are passed over). A
        missing option with no default is an ``OptionError``."""
        given = vars(namespace)
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in given:
                values[f.name] = given[f.name]
            elif f.default is dataclasses.MISSING:
                raise OptionError(f"缺少选项 / missing option: {f.name}")
        return cls(**values)

    def _field(self, name: str) -> dataclasses.Field:
        return next(f for f in dataclasses.fields(self) if f.name == name)

    def _label(self, name: str) -> str:
        """How a message names the option ``name`` (see the module's doc)."""
        return name if self._field(name).default is dataclasses.MISSING else "--" + name.replace("_", "-")

    def _may_be_none(self, name: str) -> bool:
        """An option whose default is None may be None (not given)."""
        return getattr(self, name) is None and self._field(name).default is None

    def _check_paths(self, *names: str) -> None:
        """Each a path, kept as text (a pathlib.Path from a test or a program
        becomes its text)."""
        for name in names:
            value = getattr(self, name)
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
                object.__setattr__(self, name, value)
            if not self._may_be_none(name) and (not isinstance(value, str) or not value):
                label = self._label(name)
                raise OptionError(f"{label} 应为路径 / {label} must be a path (got {value!r})")

    def _check_names(self, *names: str) -> None:
        for name in names:
            value = getattr(self, name)
            if not self._may_be_none(name) and (not isinstance(value, str) or not value):
                label = self._label(name)
                raise OptionError(f"{label} 应为名字 / {label} must be a name (got {value!r})")

    def _check_texts(self, *names: str) -> None:
        """Each text, maybe empty (or None where that is the default)."""
        for name in names:
            value = getattr(self, name)
            if not self._may_be_none(name) and not isinstance(value, str):
                label = self._label(name)
                raise OptionError(f"{label} 应为文字 / {label} must be text (got {value!r})")

    def _check_flags(self, *names: str) -> None:
        for name in names:
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"{name} 应为 True 或 False / {name} must be True or False (got {getattr(self, name)!r})")

    def _check_whole_number(self, name: str, least: int | None = None) -> None:
        value, label = getattr(self, name), self._label(name)
        if self._may_be_none(name):
            return
        # bool is an int to Python, but never a count or a seed.
        if not isinstance(value, int) or isinstance(value, bool):
            raise OptionError(f"{label} 应为整数 / {label} must be a whole number (got {value!r})")
        if least is not None and value < least:
            raise OptionError(f"{label} 至少为 {least} / {label} must be at least {least} (got {value})")

    def _check_fraction(self, name: str) -> None:
        """A number from 0 to 1 (a similarity threshold)."""
        value, label = getattr(self, name), self._label(name)
        if self._may_be_none(name):
            return
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise OptionError(f"{label} 应为 0 到 1 之间的数 / {label} must be a number between 0 and 1 (got {value!r})")
        if not 0 <= value <= 1:
            raise OptionError(f"{label} 应在 0 到 1 之间 / {label} must be between 0 and 1 (got {value:g})")

    def _check_choice(self, name: str, choices: tuple[str, ...]) -> None:
        value, label, listed = getattr(self, name), self._label(name), ", ".join(choices)
        if value not in choices:
            raise OptionError(f"{label} 应为 {listed} 之一 / {label} must be one of {listed} (got {value!r})")


def web_address(url) -> bool:
    """Whether ``url`` is a site's full address (https://... or http://...)."""
    return isinstance(url, str) and url.startswith(("https://", "http://"))
