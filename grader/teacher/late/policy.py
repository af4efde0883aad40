"""A course's late policy (``batch --policy course.toml``), and what it
costs a student who handed in late.

The file (TOML; its keys are a contract, tests and teachers use them)::

    due = 2026-12-10T23:59:00+08:00   # or a local time, with timezone = "Asia/Shanghai"
    timezone = "Asia/Shanghai"        # optional: for local times here, in the CSVs and in Moodle's worksheet
    late_penalty_per_day = 10         # percent of the points earned, per started day late
    max_penalty = 50                  # percent
    grace_days = 0                    # late days each student may use without penalty
    extensions = "extensions.csv"     # student_id,due
    times = "times.csv"               # student_id,submitted_at

Relative paths are relative to the policy file. A day late is 24 hours of
real time after the student's deadline (their extension's, if any), so a
change to or from daylight saving time neither adds nor removes an hour:
handing in at the deadline is on time, one second after it is one started
day late. Grace days are spent first; the rest cost ``late_penalty_per_day``
percent each, at most ``max_penalty`` percent, of the points the student
earned (so the total is never below 0).

A file that is wrong in any way raises ``PolicyError``, a bilingual message
naming the file and line; the batch then grades no one. Nothing here reads
the submissions.
"""

import csv
import datetime
import math
import os
import re
import tomllib
from dataclasses import dataclass, field

KEYS = {"due", "timezone", "late_penalty_per_day", "max_penalty", "grace_days", "extensions", "times"}
DAY = 86400


class PolicyError(Exception):
    """A policy file, or a file it names, that cannot be used; the message
    is bilingual and names the file and line."""


def _where(path: str, line: int | None) -> str:
    return f"{path}, 第 {line} 行 / line {line}" if line else path


def _error(path: str, line: int | None, zh: str, en: str) -> PolicyError:
    return PolicyError(f"{_where(path, line)}: {zh} / {en}")


@dataclass
class Policy:
    path: str
    due: datetime.datetime  # aware
    zone: datetime.tzinfo  # local times (the CSVs', the worksheet's) are read in this zone
    zone_name: str  # how messages name it: "Asia/Shanghai", or the due's offset
    per_day: float = 0.0  # percent
    max_penalty: float = 100.0  # percent
    grace_days: int = 0
    extensions: dict[str, datetime.datetime] = field(default_factory=dict)
    extension_lines: dict[str, int] = field(default_factory=dict)  # student id -> its line, for errors
    extensions_path: str = ""
    times: dict[str, datetime.datetime] = field(default_factory=dict)
    times_path: str = ""

    def describe(self) -> str:
        """One line for the batch's output: what the policy does."""
        parts = [
            f"截止 / due {self.due.isoformat()} ({self.zone_name})",
            f"{self.per_day:g}% / 天 / day",
            f"最多 / at most {self.max_penalty:g}%",
            f"宽限 / grace {self.grace_days} 天 / days",
        ]
        if self.extensions:
            parts.append(f"延期 / extensions {len(self.extensions)}")
        if self.times:
            parts.append(f"时间 / times {len(self.times)} ({os.path.basename(self.times_path)})")
        return ", ".join(parts)

    def due_for(self, student_id: str) -> datetime.datetime:
        return self.extensions.get(student_id, self.due)

    def check_students(self, known: set[str]) -> None:
        """``PolicyError`` for an extension given to a student who is not in
        the class being graded (a typo would silently cost them)."""
        for sid, line in sorted(self.extension_lines.items(), key=lambda x: x[1]):
            if sid not in known:
                raise _error(self.extensions_path, line, f"延期给了不在本批提交里的学生 {sid!r}", f"an extension for {sid!r}, who is not among the submissions")


def _line_of(text: str, key: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return i
    return None


def _zone(name: str, path: str, line: int | None) -> datetime.tzinfo:
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        raise _error(path, line, f"未知时区 {name!r}（应为 IANA 名称，如 Asia/Shanghai）", f"unknown time zone {name!r} (use an IANA name such as Asia/Shanghai)") from None


def parse_time(text: str, zone: datetime.tzinfo | None) -> datetime.datetime | None:
    """An ISO 8601 time (``2026-12-10T23:59:00+08:00``, or ``2026-12-10
    23:59`` read in ``zone``); None if it is not one, or has no offset and
    there is no zone."""
    try:
        t = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if t.tzinfo is None:
        if zone is None:
            return None
        t = t.replace(tzinfo=zone)
    return t


def _time_value(value, zone, path: str, line: int | None, what: str) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        t = value if value.tzinfo is not None else (value.replace(tzinfo=zone) if zone else None)
    elif isinstance(value, str):
        t = parse_time(value, zone)
    else:
        t = None
    if t is None:
        shown = value.isoformat() if isinstance(value, datetime.datetime) else repr(value)
        raise _error(
            path,
            line,
            f'{what} 不是带时区的日期时间：{shown}（例：2026-12-10T23:59:00+08:00，或加 timezone = "Asia/Shanghai"）',
            f'{what} is not a date and time with its time zone: {shown} (e.g. 2026-12-10T23:59:00+08:00, or add timezone = "Asia/Shanghai")',
        )
    return t


def _percent(data: dict, key: str, default: float, path: str, text: str, top: float | None = None) -> float:
    value = data.get(key, default)
    line = _line_of(text, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise _error(path, line, f"{key} 应为数字", f"{key} must be a number (got {value!r})")
    if value < 0:
        raise _error(path, line, f"{key} 不能为负数", f"{key} must not be negative (got {value:g})")
    if top is not None and value > top:
        raise _error(path, line, f"{key} 不能超过 {top:g}", f"{key} must be at most {top:g} (got {value:g})")
    return float(value)


def _csv_rows(path: str, header: tuple[str, str], policy_path: str, policy_line: int | None):
    """(line, student id, time text) for each row of a two-column CSV."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise _error(policy_path, policy_line, f"找不到文件 {path}", f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _error(policy_path, policy_line, f"无法读取 {path}", f"cannot read {path}: {exc}") from None
    for i, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if i == 1 and [c.lower() for c in cells[:2]] == list(header):
            continue
        if len(cells) != 2 or not cells[0]:
            raise _error(path, i, f"应为两列：{','.join(header)}", f"expected two columns, {','.join(header)} (got {row!r})")
        yield i, cells[0], cells[1]


def _times_file(path: str, header, zone, policy_path, policy_line, what: str) -> tuple[dict, dict]:
    times: dict = {}
    lines: dict = {}
    for i, sid, text in _csv_rows(path, header, policy_path, policy_line):
        if sid in times:
            raise _error(path, i, f"{sid} 出现两次（第 {lines[sid]} 行）", f"{sid} is given twice (also line {lines[sid]})")
        times[sid] = _time_value(text, zone, path, i, what)
        lines[sid] = i
    return times, lines


def load(path: str) -> Policy:
    """The policy in ``path``; ``PolicyError`` if it cannot be used."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise _error(path, None, "无法读取策略文件", f"cannot read the policy file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise _error(path, None, "不是 UTF-8 文本", "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib says "(at line N, column M)": the line is in its own words.
        m = re.search(r"at line (\d+)", str(exc))
        raise _error(path, int(m.group(1)) if m else None, "不是有效的 TOML（日期写错了？）", f"not valid TOML (a malformed date?): {exc}") from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise _error(path, _line_of(text, unknown[0]), f"未知的键 {unknown[0]!r}", f"unknown key {unknown[0]!r} (the keys are: {', '.join(sorted(KEYS))})")
    if "due" not in data:
        raise _error(path, None, "缺少 due（截止时间）", "no due (the deadline)")
    zone: datetime.tzinfo | None = None
    zone_name = ""
    if "timezone" in data:
        zone_name = data["timezone"]
        zone = _zone(zone_name, path, _line_of(text, "timezone"))
    due = _time_value(data["due"], zone, path, _line_of(text, "due"), "due")
    if zone is None:
        # No zone named: local times are read at the deadline's own offset.
        zone, zone_name = due.tzinfo, ("UTC" + due.isoformat()[-6:]) if due.utcoffset() else "UTC"
    assert zone is not None  # a time read without a zone of its own is not given one: it names its offset
    grace = data.get("grace_days", 0)
    if isinstance(grace, bool) or not isinstance(grace, int) or grace < 0:
        raise _error(path, _line_of(text, "grace_days"), "grace_days 应为非负整数", f"grace_days must be a whole number, 0 or more (got {grace!r})")
    policy = Policy(
        path=path,
        due=due,
        zone=zone,
        zone_name=zone_name,
        per_day=_percent(data, "late_penalty_per_day", 0, path, text),
        max_penalty=_percent(data, "max_penalty", 100, path, text, top=100),
        grace_days=grace,
    )
    here = os.path.dirname(os.path.abspath(path))
    for key in ("extensions", "times"):
        if key not in data:
            continue
        value, line = data[key], _line_of(text, key)
        if not isinstance(value, str) or not value:
            raise _error(path, line, f"{key} 应为文件路径", f"{key} must be a file path (got {value!r})")
        named = os.path.join(here, value)
        if key == "extensions":
            policy.extensions, policy.extension_lines = _times_file(named, ("student_id", "due"), zone, path, line, "due")
            policy.extensions_path = named
        else:
            policy.times, _ = _times_file(named, ("student_id", "submitted_at"), zone, path, line, "submitted_at")
            policy.times_path = named
    return policy


# -------------------------------------------------------------- lateness


@dataclass
class Late:
    """What the policy makes of one student's submission time."""

    submitted_at: str  # ISO 8601 in the deadline's zone, or "" when unknown
    source: str  # where the time came from (``times`` module's words), or "" when there is none
    due: str  # the student's deadline, ISO 8601
    late_days: int  # started days after the deadline (1 when only "late" is known)
    grace_used: int
    percent: float  # of the points earned
    hours_known: bool = True  # False: the platform said "late", not when

    def penalty(self, raw: float) -> float:
        return round(raw * self.percent / 100, 4)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def lateness(policy: Policy, student_id: str, submitted: datetime.datetime | None, source: str, marked_late: bool | None = None) -> Late:
    """The student's lateness. ``submitted``: when they handed in, from
    ``source``; or None, with ``marked_late`` when the platform says only
    whether it was late (Canvas): then late counts as one started day."""
    due = policy.due_for(student_id)
    hours_known = True
    if submitted is not None:
        # In UTC: Python subtracts two times of one zone by their wall clocks,
        # which would count an hour that daylight saving time skipped.
        utc = datetime.timezone.utc
        seconds = (submitted.astimezone(utc) - due.astimezone(utc)).total_seconds()
        days = math.ceil(seconds / DAY) if seconds > 0 else 0
        when = submitted.astimezone(due.tzinfo).isoformat()  # in the deadline's zone: the two read side by side
    else:
        days = 1 if marked_late else 0
        hours_known = not marked_late
        when = ""
        if marked_late is None:
            source = ""
    grace = min(days, policy.grace_days)
    percent = min(policy.max_penalty, policy.per_day * (days - grace))
    return Late(when, source, due.isoformat(), days, grace, percent, hours_known)


def nbgrader_time(text: str) -> datetime.datetime | None:
    """nbgrader's ``timestamp.txt`` (``Exchange.timestamp_format``,
    "%Y-%m-%d %H:%M:%S.%f %Z": "2026-12-10 15:59:00.123456 UTC"), or an ISO
    8601 time with its offset; None when the zone cannot be known."""
    text = text.strip()
    t = parse_time(text, None)
    if t is not None:
        return t
    date, _, zone = text.rpartition(" ")
    if not date:
        return None
    tz: datetime.tzinfo
    if zone.upper() in ("UTC", "GMT", "Z"):
        tz = datetime.timezone.utc
    elif re.fullmatch(r"[+-]\d{2}:?\d{2}", zone):
        return parse_time(f"{date}{zone[:3]}:{zone[-2:]}", None)
    else:
        try:
            import zoneinfo

            tz = zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return None
    return parse_time(date, tz)
