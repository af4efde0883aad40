"""The late policy (grader/teacher/late/policy.py): its arithmetic at the
edges (the deadline itself, one second after it, a daylight-saving change,
an extension, grace days used up, the cap) and every kind of bad file,
which must be refused with a bilingual error naming its line."""

import datetime

import pytest

from grader.teacher.late import policy as late_policy
from grader.teacher.late.policy import PolicyError


def policy(tmp_path, text: str, **files) -> late_policy.Policy:
    for name, content in files.items():
        (tmp_path / name.replace("_", ".")).write_text(content, encoding="utf-8")
    path = tmp_path / "course.toml"
    path.write_text(text, encoding="utf-8")
    return late_policy.load(str(path))


BERLIN = 'due = 2026-03-28T23:59:00\ntimezone = "Europe/Berlin"\nlate_penalty_per_day = 10\nmax_penalty = 50\n'


def late(p, sid: str, when: str):
    return late_policy.lateness(p, sid, late_policy.parse_time(when, p.zone), "times")


def test_at_the_deadline_is_on_time_and_one_second_after_is_a_day(tmp_path):
    p = policy(tmp_path, "due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = 10\n")
    assert late(p, "a", "2026-12-10T23:59:00+08:00").late_days == 0
    elsewhere = late(p, "a", "2026-12-10T15:59:00+00:00")  # the same instant in another zone
    assert elsewhere.late_days == 0
    # Said in the deadline's zone, so that the feedback's two times read side by side.
    assert (elsewhere.due, elsewhere.submitted_at) == ("2026-12-10T23:59:00+08:00", "2026-12-10T23:59:00+08:00")
    one = late(p, "a", "2026-12-10T23:59:01+08:00")
    assert (one.late_days, one.percent) == (1, 10)
    assert late(p, "a", "2026-12-11T23:59:00+08:00").late_days == 1  # exactly 24 hours: one started day
    assert late(p, "a", "2026-12-11T23:59:01+08:00").late_days == 2
    assert late(p, "a", "2026-12-01T08:00:00+08:00").percent == 0


def test_a_day_is_24_hours_across_daylight_saving_time(tmp_path):
    """Berlin moves its clocks from 02:00 to 03:00 on 2026-03-29: half past
    midnight two calendar days on is 23 h 31 min after the deadline, one
    started day (wall clocks would say 24 h 31 min, two)."""
    p = policy(tmp_path, BERLIN)
    assert p.due.utcoffset() == datetime.timedelta(hours=1)
    spring = late(p, "a", "2026-03-30T00:30")
    assert spring.late_days == 1 and spring.percent == 10
    assert late(p, "a", "2026-03-30T00:59").late_days == 1  # 24 h exactly
    assert late(p, "a", "2026-03-30T01:00").late_days == 2  # 24 h 1 min
    # Autumn: 2026-10-25 03:00 goes back to 02:00, a day of 25 hours.
    autumn = policy(tmp_path, BERLIN.replace("2026-03-28", "2026-10-24"))
    assert late(autumn, "a", "2026-10-25T22:59").late_days == 1  # 24 h exactly
    assert late(autumn, "a", "2026-10-25T23:30").late_days == 2


def test_extension_grace_days_and_the_cap(tmp_path):
    p = policy(
        tmp_path,
        'due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = 10\nmax_penalty = 25\ngrace_days = 2\nextensions = "ext.csv"\n',
        ext_csv="student_id,due\n42,2026-12-13T23:59:00+08:00\n",
    )
    # The extension moves the deadline: three days after the course's is on time for 42.
    assert late(p, "42", "2026-12-13T23:59:00+08:00").late_days == 0
    assert late(p, "7", "2026-12-13T23:59:00+08:00").late_days == 3
    # Grace days first: two of three days are free, the third costs 10%.
    third = late(p, "7", "2026-12-13T23:59:00+08:00")
    assert (third.grace_used, third.percent) == (2, 10)
    assert third.penalty(80) == 8
    # Grace used up, then the cap: 6 days, 4 charged, 40% capped at 25%.
    six = late(p, "7", "2026-12-16T12:00:00+08:00")
    assert (six.late_days, six.grace_used, six.percent) == (6, 2, 25)
    assert six.penalty(0) == 0  # a percent of the points earned: never below zero


def test_canvas_late_without_hours_is_one_day_and_says_so(tmp_path):
    p = policy(tmp_path, "due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = 10\n")
    marked = late_policy.lateness(p, "a", None, "Canvas (LATE)", True)
    assert (marked.late_days, marked.hours_known, marked.percent) == (1, False, 10)
    assert late_policy.lateness(p, "a", None, "Canvas (LATE)", False).late_days == 0
    unknown = late_policy.lateness(p, "a", None, "Canvas (LATE)", None)
    assert (unknown.late_days, unknown.source) == (0, "")


def test_nbgrader_timestamps():
    t = late_policy.nbgrader_time("2026-12-10 15:59:00.123456 UTC")
    assert t == datetime.datetime(2026, 12, 10, 15, 59, 0, 123456, tzinfo=datetime.timezone.utc)
    assert late_policy.nbgrader_time("2026-12-10 23:59:00.123456 +0800") == t
    assert late_policy.nbgrader_time("2026-12-10 23:59:00 +0800").utcoffset() == datetime.timedelta(hours=8)
    assert late_policy.nbgrader_time("2026-12-10 15:59:00 XYZ") is None
    assert late_policy.nbgrader_time("yesterday") is None


@pytest.mark.parametrize(
    "text, files, line, words",
    [
        ("due = 2026-12-32T23:59:00+08:00\n", {}, 1, "TOML"),  # malformed date
        ('due = 2026-12-10T23:59:00\ntimezone = "Mars/Olympus"\n', {}, 2, "Mars/Olympus"),  # unknown time zone
        ("due = 2026-12-10T23:59:00+08:00\nlate_penalty_per_day = -10\n", {}, 2, "negative"),
        ("due = 2026-12-10T23:59:00+08:00\nmax_penalty = -1\n", {}, 2, "negative"),
        ("due = 2026-12-10T23:59:00+08:00\nmax_penalty = 150\n", {}, 2, "at most 100"),
        ("due = 2026-12-10T23:59:00+08:00\ngrace_days = 1.5\n", {}, 2, "whole number"),
        ("due = 2026-12-10T23:59:00\n", {}, 1, "time zone"),  # no offset, no timezone
        ('due = "next friday"\n', {}, 1, "time zone"),
        ("late_penalty_per_day = 10\n", {}, None, "no due"),
        ("due = 2026-12-10T23:59:00+08:00\nlate_penalty = 10\n", {}, 2, "unknown key"),  # a typo is not ignored
        ('due = 2026-12-10T23:59:00+08:00\nextensions = "missing.csv"\n', {}, 2, "no such file"),
        ('due = 2026-12-10T23:59:00+08:00\nextensions = "ext.csv"\n', {"ext_csv": "student_id,due\n42,2026-12-40\n"}, 2, "date and time"),
        ('due = 2026-12-10T23:59:00+08:00\nextensions = "ext.csv"\n', {"ext_csv": "student_id,due\n42,2026-12-12T00:00+08:00\n42,2026-12-13T00:00+08:00\n"}, 3, "twice"),
        ('due = 2026-12-10T23:59:00+08:00\ntimes = "t.csv"\n', {"t_csv": "student_id,submitted_at\n42\n"}, 2, "two columns"),
    ],
)
def test_bad_policies_name_their_line_in_both_languages(tmp_path, text, files, line, words):
    with pytest.raises(PolicyError) as raised:
        policy(tmp_path, text, **files)
    message = str(raised.value)
    assert words in message
    assert " / " in message and any("\u4e00" <= c <= "\u9fff" for c in message)  # Chinese and English
    if line is not None:
        assert f"line {line}" in message and f"第 {line} 行" in message


def test_an_extension_for_a_student_not_in_the_class_is_refused(tmp_path):
    p = policy(tmp_path, 'due = 2026-12-10T23:59:00+08:00\nextensions = "ext.csv"\n', ext_csv="student_id,due\n42,2026-12-12T00:00:00+08:00\n4x2,2026-12-12T00:00:00+08:00\n")
    p.check_students({"42", "4x2", "7"})  # everyone known: no error
    with pytest.raises(PolicyError) as raised:
        p.check_students({"42"})
    assert "'4x2'" in str(raised.value) and "line 3" in str(raised.value)
