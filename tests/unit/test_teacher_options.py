"""Every teacher's command but batch (tests/unit/test_batch_options.py) has
its options as one typed object, beside its work, on the shared base
``grader.teacher.options.CommandOptions``: the command line's defaults are
its defaults, every option of the command line is one of its fields, a bad
value is refused with a bilingual message (exit 2 from the command line,
before any work), and the object made once from the command line is what
the command's work gets."""

import dataclasses
import importlib
from types import SimpleNamespace

import pytest

from grader import cli
from grader.teacher import verbs
from grader.teacher.options import OptionError

SITE = "https://course.example.org"


@dataclasses.dataclass
class Command:
    options: str  # the options' class, in the command's module (verbs.MODULES)
    work: str  # the function of that module that does the work, given the options
    required: list  # the command line's arguments without which it is refused
    required_values: dict  # the options they give
    every: list  # the command line with every option given, none at its default
    every_values: dict  # the options that gives


COMMANDS = {
    "report": Command("ReportOptions", "rebuild", ["out1"], {"out": "out1"}, ["out1"], {"out": "out1"}),
    "release": Command(
        "ReleaseOptions", "make_release", ["--out", "r"], {"out": "r"},
        ["--out", "r", "--docs-url", SITE, "--github-classroom"], {"out": "r", "docs_url": SITE, "github_classroom": True},
    ),
    "gradescope": Command("GradescopeOptions", "make_bundle", [], {}, ["--out", "ag.zip"], {"out": "ag.zip"}),
    "prairielearn": Command(
        "PrairieLearnOptions", "write_questions", ["--out", "pl"], {"out": "pl"},
        ["--out", "pl", "--image", "me/grader", "--docs-url", SITE], {"out": "pl", "image": "me/grader", "docs_url": SITE},
    ),
    "similar": Command(
        "SimilarOptions", "find_similar", ["subs", "--out", "o"], {"dir": "subs", "out": "o"},
        ["subs", "--out", "o", "--threshold", "0.25", "--top", "5", "--assignment", "a2"],
        {"dir": "subs", "out": "o", "threshold": 0.25, "top": 5, "assignment": "a2"},
    ),
    "notebooks": Command("NotebooksOptions", "write_or_check", [], {}, ["--check"], {"check": True}),
    "nbgrader": Command(
        "NbgraderOptions", "write_folder", ["--out", "c"], {"out": "c"},
        ["--out", "c", "--assignment", "a2", "--docs-url", SITE], {"out": "c", "assignment": "a2", "docs_url": SITE},
    ),
    "export": Command(
        "ExportOptions", "export", ["moodle", "o", "--to", "t.csv", "--worksheet", "w.csv"], {"platform": "moodle", "out": "o", "to": "t.csv", "worksheet": "w.csv"},
        ["canvas", "o", "--to", "t.csv", "--gradebook", "g.csv", "--column", "A (1)", "--worksheet", "w.csv", "--allow-unmatched"],
        {"platform": "canvas", "out": "o", "to": "t.csv", "gradebook": "g.csv", "column": "A (1)", "worksheet": "w.csv", "allow_unmatched": True},
    ),
}  # fmt: skip


def module(verb: str):
    return importlib.import_module(verbs.MODULES[verb])


def options_class(verb: str):
    return getattr(module(verb), COMMANDS[verb].options)


def parsed(verb: str, argv: list) -> SimpleNamespace:
    return cli._parser().parse_args([verb, *argv])


def test_every_teacher_command_but_batch_is_here():
    assert set(COMMANDS) == set(verbs.MODULES) - {"batch"}


@pytest.mark.parametrize("verb", COMMANDS)
def test_the_command_lines_defaults_are_the_options_defaults(verb):
    c, cls = COMMANDS[verb], options_class(verb)
    assert cls.from_namespace(parsed(verb, c.required)) == cls(**c.required_values)


@pytest.mark.parametrize("verb", COMMANDS)
def test_every_option_of_the_command_line_is_a_field_and_back(verb):
    given = set(vars(parsed(verb, COMMANDS[verb].required))) - {"verb"}
    assert given == {f.name for f in dataclasses.fields(options_class(verb))}


@pytest.mark.parametrize("verb", COMMANDS)
def test_every_option_reaches_the_work(verb, monkeypatch):
    """From the command line to the work, as one object: the work gets the
    options (not argparse's namespace), with every option as given."""
    c, cls = COMMANDS[verb], options_class(verb)
    every = cls(**c.every_values)
    # The test gives each option a value of its own, so a dropped one shows.
    assert all(getattr(every, f.name) != f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING)
    got = []
    monkeypatch.setattr(module(verb), c.work, lambda options: got.append(options) or 7)
    assert cli.main([verb, *c.every]) == 7
    assert got == [every] and type(got[0]) is cls


@pytest.mark.parametrize(
    "verb, bad, words",
    [
        ("report", {"out": ""}, "out must be a path (got '')"),
        ("report", {"out": None}, "out must be a path (got None)"),
        ("release", {"out": 3}, "out must be a path"),
        ("release", {"docs_url": "docs/"}, "--docs-url takes the course site's full address (https://...), not 'docs/': the release holds no docs/"),
        ("release", {"github_classroom": "yes"}, "github_classroom must be True or False"),
        ("gradescope", {"out": ""}, "--out must be a path (got '')"),
        ("gradescope", {"out": None}, "--out must be a path (got None)"),
        ("prairielearn", {"image": ""}, "--image must be a name (got '')"),
        ("prairielearn", {"docs_url": "course.example.org"}, "takes the course site's full address (https://...), not 'course.example.org'"),
        ("similar", {"dir": None}, "dir must be a path"),
        ("similar", {"threshold": 1.5}, "--threshold must be between 0 and 1 (got 1.5)"),
        ("similar", {"threshold": None}, "--threshold must be a number between 0 and 1 (got None)"),
        ("similar", {"top": 0}, "--top must be at least 1 (got 0)"),
        ("similar", {"top": 2.5}, "--top must be a whole number (got 2.5)"),
        ("similar", {"top": True}, "--top must be a whole number (got True)"),
        ("similar", {"assignment": ""}, "--assignment must be a name"),
        ("notebooks", {"check": 1}, "check must be True or False (got 1)"),
        ("nbgrader", {"out": ""}, "out must be a path"),
        ("nbgrader", {"assignment": None}, "--assignment must be a name (got None)"),
        ("nbgrader", {"docs_url": None}, "--docs-url must be text (got None)"),
        ("export", {"platform": "blackboard"}, "platform must be one of canvas, moodle (got 'blackboard')"),
        ("export", {"platform": "canvas"}, "canvas needs --gradebook and --column"),
        ("export", {"worksheet": ""}, "moodle needs --worksheet"),
        ("export", {"to": ""}, "to must be a path (got '')"),
        ("export", {"column": 5}, "--column must be text (got 5)"),
        ("export", {"allow_unmatched": None}, "allow_unmatched must be True or False"),
    ],
)
def test_a_bad_option_is_a_clear_error(verb, bad, words):
    with pytest.raises(OptionError, match="/|\n") as caught:  # both languages
        options_class(verb)(**{**COMMANDS[verb].required_values, **bad})
    assert words in str(caught.value)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in str(caught.value))  # Chinese too


@pytest.mark.parametrize(
    "argv, said",
    [
        (["report", ""], "python -m grader report: 错误 / error: out 应为路径 / out must be a path (got '')"),
        (
            ["release", "--out", "r", "--docs-url", "docs/"],
            "python -m grader release: 错误 / error:\n  --docs-url 要写课程网站的完整网址（https://...），而不是 'docs/'\n"
            "  --docs-url takes the course site's full address (https://...), not 'docs/': the release holds no docs/",
        ),
        (["gradescope", "--out", ""], "python -m grader gradescope: 错误 / error: --out 应为路径 / --out must be a path (got '')"),
        (
            ["prairielearn", "--out", "pl", "--docs-url", "course.example.org"],
            "python -m grader prairielearn: 错误 / error: --docs-url 要写课程网站的完整网址（https://...） / takes the course site's full address (https://...), not 'course.example.org'",
        ),
        (["similar", "subs", "--out", "o", "--top", "0"], "python -m grader similar: 错误 / error: --top 至少为 1 / --top must be at least 1 (got 0)"),
        (["similar", "subs", "--out", "o", "--threshold", "2"], "python -m grader similar: 错误 / error: --threshold 应在 0 到 1 之间 / --threshold must be between 0 and 1 (got 2)"),
        (["nbgrader", "--out", "c", "--assignment", ""], "python -m grader nbgrader: 错误 / error: --assignment 应为名字 / --assignment must be a name (got '')"),
        (["export", "canvas", "o", "--to", "t.csv"], "python -m grader export: 错误 / error: canvas 需要 --gradebook 和 --column / canvas needs --gradebook and --column"),
        (["export", "moodle", "o", "--to", "t.csv"], "python -m grader export: 错误 / error: moodle 需要 --worksheet / moodle needs --worksheet"),
    ],
)
def test_a_bad_value_on_the_command_line_is_a_usage_error_before_any_work(argv, said, monkeypatch, capsys):
    monkeypatch.setattr(module(argv[0]), COMMANDS[argv[0]].work, lambda options: pytest.fail("the work ran"))
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == said + "\n"


def test_notebooks_refuses_a_bad_value_from_a_program(monkeypatch, capsys):
    """``notebooks`` has no value the command line can get wrong; ``run``
    still refuses one from a program, as a usage error."""
    monkeypatch.setattr(module("notebooks"), "write_or_check", lambda options: pytest.fail("the work ran"))
    assert module("notebooks").run(SimpleNamespace(verb="notebooks", check="yes")) == 2
    assert capsys.readouterr().err.startswith("python -m grader notebooks: 错误 / error: check 应为 True 或 False / check must be True or False")


@pytest.mark.parametrize("verb", [v for v in COMMANDS if COMMANDS[v].required_values])
def test_a_missing_option_is_named_not_an_attribute_error(verb, capsys):
    first = next(f.name for f in dataclasses.fields(options_class(verb)) if f.default is dataclasses.MISSING)
    assert module(verb).run(SimpleNamespace(verb=verb)) == 2
    assert f"missing option: {first}" in capsys.readouterr().err


def test_options_are_frozen_and_paths_become_text(tmp_path):
    options = options_class("export")("moodle", tmp_path / "out", tmp_path / "t.csv", worksheet=tmp_path / "w.csv")
    assert (options.out, options.to, options.worksheet) == (str(tmp_path / "out"), str(tmp_path / "t.csv"), str(tmp_path / "w.csv"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.to = "elsewhere.csv"


def test_an_unknown_option_is_refused_when_built_directly():
    with pytest.raises(TypeError, match="topp"):
        options_class("similar")("subs", "o", topp=2)


# A program runs each command's work with options of its own; the work's own
# checks of the files they name still apply, and nothing is written.
def test_a_program_rebuilds_a_report(tmp_path, capsys):
    assert module("report").rebuild(options_class("report")(tmp_path)) == 2
    assert f"{tmp_path} 不是批量评分的输出文件夹" in capsys.readouterr().err


def test_a_program_compares_a_class(tmp_path, capsys):
    assert module("similar").find_similar(options_class("similar")(tmp_path / "missing", tmp_path / "out")) == 2
    assert f"no such folder or zip: {tmp_path / 'missing'}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_program_exports_grades(tmp_path, capsys):
    options = options_class("export")("moodle", tmp_path, tmp_path / "t.csv", worksheet=tmp_path / "w.csv")
    assert module("export").export(options) == 2
    assert "is not the output of `python -m grader batch`" in capsys.readouterr().err
    assert not (tmp_path / "t.csv").exists()


def test_a_program_builds_a_bundle(tmp_path, capsys):
    assert module("gradescope").make_bundle(options_class("gradescope")(tmp_path)) == 2
    assert f"{tmp_path} 是文件夹 / is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["release", "prairielearn"])
def test_a_program_writes_into_a_folder_of_its_choice(verb, tmp_path, capsys):
    (tmp_path / "kept.txt").write_text("mine")
    assert getattr(module(verb), COMMANDS[verb].work)(options_class(verb)(tmp_path)) == 2
    assert "exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_a_program_writes_an_nbgrader_course(tmp_path, capsys):
    (tmp_path / "a file").write_text("")
    assert module("nbgrader").write_folder(options_class("nbgrader")(tmp_path / "a file")) == 2
    assert f"cannot write {tmp_path / 'a file'}" in capsys.readouterr().err
