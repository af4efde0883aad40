"""batch's options as one typed object (grader/teacher/batch/options.py):
the command line's defaults are its defaults, every option batch reads is
one of its fields, and a missing or bad option is a clear bilingual error
(``BatchOptionError``), never an AttributeError deep in the batch."""

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader import cli
from grader.teacher.batch import command
from grader.teacher.batch.options import BatchOptionError, BatchOptions


def parsed(*argv) -> SimpleNamespace:
    return cli._parser().parse_args(["batch", *argv])


def test_the_command_lines_defaults_are_the_options_defaults():
    assert BatchOptions.from_namespace(parsed("subs", "--out", "out")) == BatchOptions("subs", "out")


def test_every_option_of_the_command_line_is_a_field_and_back():
    given = set(vars(parsed("subs", "--out", "out"))) - {"verb"}
    assert given == {f.name for f in dataclasses.fields(BatchOptions)}


def test_every_option_reaches_the_object():
    argv = ["subs", "--out", "out", "--jobs", "3", "--assignment", "a2", "--db", "g.db", "--force", "--sandbox", "off"]
    argv += ["--inputs-seed", "5", "--no-report", "--threshold", "0.25", "--policy", "course.toml", "--worksheet", "w.csv"]
    options = BatchOptions.from_namespace(parsed(*argv))
    assert options == BatchOptions("subs", "out", 3, "a2", "g.db", True, "off", 5, True, 0.25, "course.toml", "w.csv")


def test_a_namespace_without_an_optional_option_gets_its_default():
    assert BatchOptions.from_namespace(SimpleNamespace(dir="subs", out="out", verb="batch")) == BatchOptions("subs", "out")


def test_a_missing_option_is_named():
    with pytest.raises(BatchOptionError, match="missing option: out"):
        BatchOptions.from_namespace(SimpleNamespace(dir="subs"))


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"jobs": 0}, "--jobs must be at least 1 (got 0)"),
        ({"jobs": "4"}, "--jobs must be a whole number"),
        ({"jobs": True}, "--jobs must be a whole number"),
        ({"inputs_seed": 1.5}, "--inputs-seed must be a whole number"),
        ({"threshold": 1.5}, "--threshold must be between 0 and 1 (got 1.5)"),
        ({"threshold": "high"}, "--threshold must be a number"),
        ({"sandbox": "maybe"}, "--sandbox must be one of auto, require, off"),
        ({"force": "yes"}, "force must be True or False"),
        ({"no_report": 1}, "no_report must be True or False"),
        ({"assignment": ""}, "--assignment must be a name"),
        ({"out": ""}, "out must be a path"),
        ({"dir": None}, "dir must be a path"),
        ({"policy": 3}, "--policy must be a path"),
    ],
)
def test_a_bad_option_is_a_clear_error(bad, words):
    with pytest.raises(BatchOptionError, match="/") as caught:  # both languages
        BatchOptions(**{"dir": "subs", "out": "out", **bad})
    assert words in str(caught.value)


def test_an_unknown_option_is_refused_when_built_directly():
    with pytest.raises(TypeError, match="jobz"):
        BatchOptions("subs", "out", jobz=2)


def test_options_are_frozen_and_paths_become_text(tmp_path):
    options = BatchOptions(tmp_path / "subs", Path("out"), policy=tmp_path / "course.toml")
    assert (options.dir, options.out, options.policy) == (str(tmp_path / "subs"), "out", str(tmp_path / "course.toml"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.jobs = 2


def test_the_command_says_what_is_missing_instead_of_failing(capsys):
    """``command.run`` takes argparse's namespace: one without ``out`` is a
    usage error (exit 2), not an AttributeError."""
    assert command.run(SimpleNamespace(dir="subs", verb="batch")) == 2
    assert "missing option: out" in capsys.readouterr().err


def test_a_program_grades_with_options_of_its_own(tmp_path, capsys):
    """``grade_class`` takes the object itself; the batch's own checks of
    the files it names still apply."""
    assert command.grade_class(BatchOptions(tmp_path / "missing", tmp_path / "out")) == 2
    assert "no such folder or zip" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_small_class_gets_fewer_workers(monkeypatch):
    """Without --jobs: one worker per core, but no more than one per
    STUDENTS_PER_WORKER students (a worker's start costs as much as grading
    about ten submissions)."""
    from grader.teacher.batch import command

    monkeypatch.setattr(command, "_cores", lambda: 4)
    per = command.STUDENTS_PER_WORKER
    assert [command.workers_for(n) for n in (0, 1, per, per + 1, 3 * per, 100)] == [1, 1, 1, 2, 3, 4]
