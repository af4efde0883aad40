"""Each student's lateness in a batch with ``--policy``: the policy
(``late_policy``) applied to the submission time from the best source
there is, which grades.csv names:

1. nbgrader's ``timestamp.txt``, read only where nbgrader's exchange
   writes it (``intake.submissions._nbgrader_times``): never a file a student can put
   in their own folder or zip, on any platform;
2. Moodle's grading worksheet (``--worksheet``), "Last modified (submission)";
3. the policy's ``times`` file, which the teacher exports;
4. Canvas's ``LATE`` in the file names, which says late but not when
   (one started day, and the feedback says so). Canvas marks it against
   Canvas's own due date for the student, which the policy's may not be;
   so grades.csv says whose verdict it is, for the students it marks and
   for those it does not (``CANVAS_LATE``, ``CANVAS_NOT_LATE``), and never
   that an on-time student's time came from "LATE".
5. a cloned GitHub Classroom repository's last commit date
   (``classroom_repos``, ``GIT_COMMIT``): set by the student's machine,
   so the batch names every student timed by it and asks for the times
   file (the push times, GitHub's record) in its place.

File times are never read: unzipping changes them. A student with none of
these is on time, and the batch says who they are.
"""

import os

from grader.teacher.intake import moodle_worksheet
from grader.teacher.intake.platform_csv import PlatformFileError
from grader.teacher.late import policy as late_policy
from grader.teacher.late.policy import PolicyError
from grader.text import count

# grades.csv's time_source where Canvas's file names are all there is.
CANVAS_LATE = "Canvas: LATE by Canvas's due date (no time)"
CANVAS_NOT_LATE = "Canvas: not LATE by Canvas's due date (no time)"
# grades.csv's time_source for a cloned repository's last commit date: the student's clock, not GitHub's.
GIT_COMMIT = "git: last commit's date (set by the student's machine)"


class LateInputError(Exception):
    """The policy, or a file that gives times, cannot be used: nothing is graded."""


class Lateness:
    def __init__(self, policy: late_policy.Policy, worksheet: dict, worksheet_name: str):
        self.policy = policy
        self.worksheet, self.worksheet_name = worksheet, worksheet_name
        self.warnings: list[str] = []

    @classmethod
    def load(cls, policy_path: str | None, worksheet_path: str | None) -> "Lateness | None":
        if policy_path is None:
            if worksheet_path is not None:
                raise LateInputError("--worksheet 只为 --policy 提供提交时间 / --worksheet gives submission times for --policy: add --policy")
            return None
        try:
            policy = late_policy.load(policy_path)
            times = moodle_worksheet.Worksheet(worksheet_path).times(policy.zone) if worksheet_path else {}
        except (PolicyError, PlatformFileError) as exc:
            raise LateInputError(str(exc)) from None
        return cls(policy, times, os.path.basename(worksheet_path or ""))

    def of(self, entries) -> dict:
        """Student id -> ``late_policy.Late`` for every entry;
        ``LateInputError`` for an extension to a student not among them."""
        known = {e.student_id for e in entries}
        try:
            self.policy.check_students(known)
        except PolicyError as exc:
            raise LateInputError(str(exc)) from None
        strangers = sorted(set(self.policy.times) - known)
        if strangers:
            self.warnings.append(f"times 文件里有不在本批提交里的学生，忽略 / students in the times file but not among the submissions, ignored: {', '.join(strangers[:5])}")
        late, unknown, unreadable, committed = {}, [], [], []
        times_name = "times: " + os.path.basename(self.policy.times_path)
        for e in entries:
            sid = e.student_id
            when = late_policy.nbgrader_time(e.submitted_at) if e.time_source == "timestamp.txt" and e.submitted_at else None
            if e.time_source == "timestamp.txt" and e.submitted_at and when is None:
                unreadable.append(sid)
            if when is not None:
                late[sid] = late_policy.lateness(self.policy, sid, when, "timestamp.txt")
            elif sid in self.worksheet:
                late[sid] = late_policy.lateness(self.policy, sid, self.worksheet[sid], f"worksheet: {self.worksheet_name}")
            elif sid in self.policy.times:
                late[sid] = late_policy.lateness(self.policy, sid, self.policy.times[sid], times_name)
            elif e.time_source == GIT_COMMIT and late_policy.parse_time(e.submitted_at, None) is not None:
                late[sid] = late_policy.lateness(self.policy, sid, late_policy.parse_time(e.submitted_at, None), GIT_COMMIT)
                committed.append(sid)
            elif e.marked_late is not None:
                late[sid] = late_policy.lateness(self.policy, sid, None, CANVAS_LATE if e.marked_late else CANVAS_NOT_LATE, e.marked_late)
            else:
                late[sid] = late_policy.lateness(self.policy, sid, None, "")
                unknown.append(sid)
        if unreadable:
            self.warnings.append(f"timestamp.txt 读不出时间 / timestamp.txt without a readable time: {', '.join(unreadable[:5])}")
        if committed:
            self.warnings.append(
                f"{len(committed)} 名学生的提交时间取自仓库最后一次提交的日期，这个日期由学生的电脑写入，可以伪造"
                f"（在策略的 times 文件里给出推送时间即可取代） / {count(len(committed), 'student')} timed by the repository's "
                "last commit date, which the student's machine sets and can forge (give the push times in the policy's "
                "times file to replace it): " + ", ".join(committed[:5]) + (f" … (+{len(committed) - 5})" if len(committed) > 5 else "")
            )
        if unknown:
            self.warnings.append(
                f"{len(unknown)} 名学生没有提交时间，不扣迟交分 / students without a submission time, so no late penalty: "
                + ", ".join(unknown[:5])
                + (f" … (+{len(unknown) - 5})" if len(unknown) > 5 else "")
                + "（用策略的 times 文件或 --worksheet 给出 / give them in the policy's times file or with --worksheet）"
            )
        return late
