"""Gradescope's results.json as its documentation gives it, and what this
grader promises of it, for the tests of what writes one."""

from grader import __version__
from grader.exercises import IDS

# results.json as Gradescope documents it, field by field
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/): a field it
# does not document, a misspelled one or a value it does not list fails.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
NUMBER = {"type": "number"}
TEST_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": NUMBER,
        "max_score": NUMBER,
        "status": {"enum": ["passed", "failed"]},
        "name": {"type": "string"},
        "name_format": FORMAT,
        "number": {"type": "string"},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "tags": {"type": "array", "items": {"type": "string"}},
        "visibility": VISIBILITY,
        "extra_data": {"type": "object"},
    },
}
RESULTS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": NUMBER,
        "execution_time": NUMBER,
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": TEST_SCHEMA},
        "leaderboard": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "value"],
                "properties": {"name": {"type": "string"}, "value": {"type": ["number", "string"]}, "order": {"enum": ["asc", "desc"]}},
            },
        },
    },
    # "score": at the top, or on every test.
    "anyOf": [{"required": ["score"]}, {"required": ["tests"], "properties": {"tests": {"items": {"required": ["score"]}}}}],
}


# What this grader writes in each test's extra_data (``report.check_data``),
# and the summary it adds to the top-level extra_data when there is one.
TEXT = {"type": "object", "additionalProperties": False, "required": ["zh", "en"], "properties": {"zh": {"type": "string", "minLength": 1}, "en": {"type": "string", "minLength": 1}}}
CHECK_DATA_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "started", "diagnosis"],
    "properties": {
        "kind": {"enum": ["public", "hidden"]},
        "started": {"type": "boolean"},
        "diagnosis": {"anyOf": [{"type": "null"}, TEXT]},
    },
}
SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {
        "not_started": {"type": "array", "minItems": 1, "items": {"enum": list(IDS)}},
        "diagnoses": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["exercise", "zh", "en", "checks"],
                "properties": {
                    "exercise": {"enum": list(IDS)},
                    "zh": {"type": "string", "minLength": 1},
                    "en": {"type": "string", "minLength": 1},
                    "checks": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                },
            },
        },
    },
}


def valid(results: dict) -> dict:
    """``results``, once it is known to be what Gradescope reads, and what this grader promises of it."""
    import jsonschema

    jsonschema.validate(results, RESULTS_SCHEMA)
    assert results["stdout_visibility"] == "hidden"  # the report printed for the teacher quotes hidden checks
    assert results["extra_data"]["grader_version"] == __version__
    tests = results["tests"]
    hidden = [t for t in tests if t["tags"][1] == "hidden"]
    assert results["visibility"] == ("after_published" if hidden else "visible")
    assert {t["visibility"] for t in hidden} <= {"after_published"}
    assert all(t["output_format"] == "text" for t in tests)
    per_exercise: dict = {}
    for t in tests:  # "4.2": ex4's second check
        ex = t["tags"][0]
        per_exercise[ex] = per_exercise.get(ex, 0) + 1
        assert t["number"] == f"{IDS.index(ex)}.{per_exercise[ex]}", t
    # Each check's extra_data: its kind as its tags say it; a check that met
    # the stub or named a mistake failed.
    for t in tests:
        jsonschema.validate(t["extra_data"], CHECK_DATA_SCHEMA)
        data = t["extra_data"]
        assert data["kind"] == t["tags"][1], t
        if not data["started"] or data["diagnosis"]:
            assert t["status"] == "failed" and t["score"] == 0, t
    # The summary says what the checks say, and only what they say.
    jsonschema.validate(results["extra_data"], SUMMARY_SCHEMA)
    by_exercise: dict = {}
    for t in tests:
        by_exercise.setdefault(t["tags"][0], []).append(t["extra_data"]["started"])
    not_started = [ex for ex in IDS if ex in by_exercise and not any(by_exercise[ex])]
    assert results["extra_data"].get("not_started", []) == not_started
    named: dict = {}
    for t in tests:
        d = t["extra_data"]["diagnosis"]
        if d:
            named.setdefault((t["tags"][0], d["zh"], d["en"]), []).append(t["tags"][2])
    summary = {(d["exercise"], d["zh"], d["en"]): d["checks"] for d in results["extra_data"].get("diagnoses", [])}
    assert summary == named
    return results
