"""One request, one result: what a grading is asked (``GradeRequest``) and
what it says (``Graded``), the same for every way in.

The command line builds a request from its arguments, ``--watch`` one per
saved exercise, ``check()`` in a notebook one per call, GitHub Classroom's
step one for the public checks, and a batch worker one per student; the warm
grader's protocol carries a request as JSON fields and a result back the
same way. ``grade_command.grade_folder`` turns a request into a ``Graded``
for all of them.

Both types are plain data and import nothing heavy: a notebook's kernel
builds and reads them (``warm_grader``), and must never load torch or the
engine.
"""

import dataclasses
import os
from dataclasses import dataclass, field

from grader.exercises import IDS

SANDBOX_CHOICES = ("auto", "require", "off")


class BadRequest(ValueError):
    """A request no grading can follow: its message is bilingual, for whoever asked."""


@dataclass(frozen=True)
class GradeRequest:
    path: str = "exercises"  # the folder of exercise files (or notebooks) to grade
    only: str | None = None  # one exercise's id; None: every exercise
    public_only: bool = False  # the public checks only, as a student's copy has them
    inputs_seed: int | None = None  # None: the grader's rule (``Grader.seed_for``); 0: the inputs as written
    sandbox: str = "auto"  # how a grader made for it confines code; a warm grader keeps the one it started with
    json_path: str | None = None  # also write Gradescope's results.json here
    display_name: str | None = None  # how the report names the folder, when not as given

    def __post_init__(self):
        if isinstance(self.path, os.PathLike):
            object.__setattr__(self, "path", os.fspath(self.path))
        for name in ("path", "only", "json_path", "display_name"):
            value = getattr(self, name)
            if not (isinstance(value, str) and value) and not (value is None and name != "path"):
                raise BadRequest(f"{name} 应为非空文字 / {name} must be non-empty text (got {value!r})")
        if not isinstance(self.public_only, bool):
            raise BadRequest(f"public_only 应为 True 或 False / public_only must be True or False (got {self.public_only!r})")
        if self.inputs_seed is not None and (not isinstance(self.inputs_seed, int) or isinstance(self.inputs_seed, bool)):
            raise BadRequest(f"--inputs-seed 应为整数 / --inputs-seed must be a whole number (got {self.inputs_seed!r})")
        if self.sandbox not in SANDBOX_CHOICES:
            raise BadRequest(f"--sandbox 应为 {', '.join(SANDBOX_CHOICES)} 之一 / --sandbox must be one of {', '.join(SANDBOX_CHOICES)} (got {self.sandbox!r})")

    @classmethod
    def from_namespace(cls, args) -> "GradeRequest":
        """``grade``'s arguments (argparse's namespace: ``grade_options``) as a request."""
        return cls(
            path=args.path,
            only=args.only,
            public_only=args.public_only,
            inputs_seed=args.inputs_seed,
            sandbox=args.sandbox,
            json_path=args.json,
            display_name=args.display_name,
        )

    def problem(self) -> str | None:
        """What makes this request ungradable before any grading (the command
        line's usage error; the warm grader's refusal), or None."""
        if self.only is not None and self.only not in IDS:
            close = [ex for ex in IDS if self.only in ex]
            hint = f"（是不是 / did you mean {close[0]}?）" if close else ""
            return f"没有这道练习 / no exercise {self.only!r}{hint}; 可选 / choose from: {', '.join(IDS)}"
        if not os.path.isdir(self.path):
            start = "；`start 文件夹` 把练习放进一个文件夹 / `start FOLDER` puts the exercises in a folder" if self.path == "exercises" else ""
            return f"找不到文件夹 / no such folder: {self.path}{start}"
        return None

    def exercises(self) -> list[str]:
        return [ex for ex in IDS if self.only in (None, ex)]

    def as_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, fields: object) -> "GradeRequest":
        """A request from the warm grader's protocol: a JSON object of these
        fields and no others (a value of the wrong type is a ``BadRequest``)."""
        if not isinstance(fields, dict):
            raise BadRequest("请求应为 JSON 对象 / a request must be a JSON object")
        unknown = sorted(set(fields) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise BadRequest(f"请求里有未知的字段 / unknown fields in the request: {', '.join(map(str, unknown))}")
        return cls(**fields)


@dataclass
class Graded:
    """What one grading says, as ``python -m grader grade`` would say it."""

    code: int  # the exit status: 0 graded; 2 the request was refused; 3 the grader itself failed
    report: str = ""  # the terminal's report
    notes: str = ""  # the grader's own notes, for stderr (code not fully confined here, say)
    passed: bool = True  # every check graded passed (``grade --exit-code`` exits 1 otherwise)
    results: dict = field(default_factory=dict)  # Gradescope's results.json; empty when nothing was graded

    def as_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, fields: object) -> "Graded":
        """A result from the warm grader's protocol; one that is not shaped
        as this type is raises ``ValueError``."""
        if not isinstance(fields, dict):
            raise ValueError("a result must be a JSON object")
        graded = cls(
            code=fields.get("code"),  # type: ignore[arg-type]  # checked below
            report=fields.get("report", ""),
            notes=fields.get("notes", ""),
            passed=fields.get("passed", True),
            results=fields.get("results") or {},
        )
        if type(graded.code) is not int or not isinstance(graded.report, str) or not isinstance(graded.notes, str):
            raise ValueError("a result's code, report and notes must be an integer and text")
        if not isinstance(graded.passed, bool) or not isinstance(graded.results, dict):
            raise ValueError("a result's passed and results must be a boolean and an object")
        return graded


def refused(problem: str) -> Graded:
    """The result of a request refused before grading, as the command line says it."""
    return Graded(2, notes=f"python -m grader: 错误 / error: {problem}\n", passed=False)
