"""Canvas's "Download Submissions", zip or folder, read as one submission
per student (``downloads.read`` tells it from the other kinds).

Its files lie flat, named
``<name>[_LATE]_<user id>_<attachment id>_<file name>`` (canvas-lms,
``lib/content_zipper.rb``: the name is the sortable name, lowercased,
without what is not a word character; ``LATE`` when the submission was
late; ``anon_<id>`` in place of name and user id under anonymous
grading). Students are keyed by user id. The student chooses the name
and the file name on either side of Canvas's fields, and either may hold
numbers between underscores: a file name is read as Canvas wrote it where
that is sure (``canvas_readings``, ``_choose``, ``_canvas_readings``),
and a file that could be one student's or another's is graded for
neither, each told (the teacher renames it). A file the student uploaded
again under a name they had used comes back as ``name-1.py``; where two
files give one exercise, the newest upload (the larger attachment id)
is graded and the note says which was not. A text entry or a URL is not
graded: the student's note says so. Each student's files are graded as
``platform_files`` grades a platform's flat files.
"""

import re
from dataclasses import dataclass

from grader.teacher.intake import platform_files, submissions
from grader.teacher.intake.submissions import FILENAMES, Entry, _note, printable

KIND = "Canvas"


@dataclass(frozen=True)
class CanvasFile:
    name: str  # "smithjohn"; "" under anonymous grading
    student_id: str  # the user id, or "anon_<id>"
    late: bool
    attachment: int | None  # None: a text entry or a URL (text.html, link.html)
    filename: str  # as the student named it
    uid_at: int = 0  # which "_"-separated part of the file name the user id starts at
    aid_at: int = 0  # ... and which holds the attachment id (or "text.html")

    @property
    def prefix(self) -> tuple[str, bool]:
        """What Canvas writes before the user id, the same on every file of one student."""
        return self.name, self.late


def _number(part: str) -> bool:
    return part.isascii() and part.isdigit()


def canvas_readings(name: str) -> list[CanvasFile]:
    """Every way ``name`` reads as a file of Canvas's download, left to right.

    Canvas writes ``<name>[_LATE]_<user id>_<attachment id>_<file name>``
    (content_zipper.rb, ``get_filename`` and ``add_upload_submission``):
    the name is the sortable name, lowercased (so no ``LATE`` and no capital
    is in it), with what is not a word character taken out; ``_<digits>_``
    is made ``<digits>`` first (``sanitize_user_name``), but a name may still
    end in ``_<digits>`` (``zz_4242``) and, through the characters taken out
    after, hold ``_<digits>_`` too. The student chooses both their name and
    their file's, so one file name may read several ways: ``_choose`` and
    ``students`` decide, or refuse to."""
    parts = name.split("_")
    found = []
    for i, part in enumerate(parts):
        if _number(part):
            sid, head, aid_at = part, parts[:i], i + 1
        elif part == "anon" and i + 1 < len(parts) and parts[i + 1].isascii() and parts[i + 1].isalnum():
            sid, head, aid_at = "anon_" + parts[i + 1], parts[:i], i + 2
        else:
            continue
        late = bool(head) and head[-1] == "LATE"
        head = head[:-1] if late else head
        # A name is always written (maybe empty: "_101_..."), and none under anonymous grading.
        if bool(head) == sid.startswith("anon_") or any("A" <= c <= "Z" for c in "_".join(head)):
            continue
        rest = parts[aid_at:]
        if len(rest) > 1 and _number(rest[0]) and "_".join(rest[1:]):
            found.append(CanvasFile("_".join(head), sid, late, int(rest[0]), "_".join(rest[1:]), i, aid_at))
        elif rest in (["text.html"], ["link.html"]):
            found.append(CanvasFile("_".join(head), sid, late, None, rest[0], i, aid_at))
    return found


def _choose(readings: list[CanvasFile]) -> CanvasFile | None:
    """The reading of a file name to believe; None if there is none, or no
    sure one.

    Of two readings where the right one's user id is the part the left one
    takes for the attachment id, and the right one's file is an exercise
    file (``zz_4242_101_5000_ex0_weighted_sum.py``: user 4242 with a file
    "5000_ex0_weighted_sum.py", or user 101 with ex0), the right one: had
    the left one been the truth, the file (no exercise file then) would go
    to a user id equal to the student's own attachment id, which no name
    can arrange. Any other choice could give one student's file to a user
    id another student wrote into their name or file name (a zip named
    ``2024_hw.zip`` reads two ways as well): refused."""
    if len(readings) == 1:
        return readings[0]
    if len(readings) == 2:
        left, right = sorted(readings, key=lambda r: r.uid_at)
        if left.attachment is not None and right.uid_at == left.aid_at and _resubmitted(right.filename)[0] in FILENAMES:
            return right
    return None


def canvas_file(name: str) -> CanvasFile | None:
    """A Canvas download's file name taken apart, if it reads one sure way."""
    return _choose(canvas_readings(name))


def _resubmitted(filename: str) -> tuple[str, int]:
    """``ex0_weighted_sum-2.py`` -> (``ex0_weighted_sum.py``, 2): the name a
    file had before Canvas told it from an earlier upload of that name, and
    how many came before; other names as they are, with 0."""
    stem, dot, ext = filename.rpartition(".")
    m = re.fullmatch(r"(.+)-(\d+)", stem)
    if dot and m and f"{m[1]}.{ext}" in FILENAMES:
        return f"{m[1]}.{ext}", int(m[2])
    return filename, 0


def _canvas_readings(root: str, names: list[str]) -> dict[str, list[CanvasFile]]:
    """Each regular file's readings (``canvas_readings``), narrowed by what
    the rest of the download shows for sure:

    - a download is anonymous or not as a whole (the assignment's setting):
      ``anon_<id>`` readings where every file has one, else none;
    - every file of one student begins alike (``prefix``): a reading that
      gives a user id another name than the file read only one way gives
      it, is not the truth. The files read one way are read right, so this
      never drops a true reading, and is repeated while it narrows."""
    readings = {n: canvas_readings(n) for n in names if platform_files.is_file(root, n)}
    anonymous = all(any(r.student_id.startswith("anon_") for r in rs) for rs in readings.values() if rs)
    readings = {n: [r for r in rs if r.student_id.startswith("anon_") == anonymous] for n, rs in readings.items()}
    while True:
        sure: dict[str, set] = {}
        for rs in readings.values():
            if len(rs) == 1:
                sure.setdefault(rs[0].student_id, set()).add(rs[0].prefix)
        narrowed = False
        for n, rs in readings.items():
            kept = [r for r in rs if r.prefix in sure.get(r.student_id, {r.prefix})]
            if len(rs) > 1 and 0 < len(kept) < len(rs):
                readings[n], narrowed = kept, True
        if not narrowed:
            return readings


def students(root: str, names: list[str], work_dir: str, assignment, warnings: list[str]) -> list[Entry]:
    """The students of the download in ``root`` (``names``: what lies there),
    by user id; ``warnings`` gets the files that are no one's or could be
    either of two students'."""
    by_student: dict[str, list[tuple[CanvasFile, str]]] = {}
    unsure: dict[str, list[str]] = {}  # user id -> files that may be theirs, or another's: graded for no one
    named: dict[str, str] = {}  # user id -> a name it is written with
    readings = _canvas_readings(root, names)
    others = [n for n in names if not readings.get(n)]
    for n, rs in readings.items():
        f = _choose(rs)
        if f is not None:
            by_student.setdefault(f.student_id, []).append((f, n))
            continue
        for r in rs:
            unsure.setdefault(r.student_id, []).append(n)
            named.setdefault(r.student_id, r.name)
        ids = sorted({r.student_id for r in rs})
        warnings.append(
            _note("文件名有多种读法，不知道是哪位学生的，未评分", "a file name that reads more than one way, so whose it is is unclear: graded for no one")
            + f": {printable(n)} (Canvas user id {' / '.join(ids)}); "
            + _note("在下载里给它改名，只留一种读法，再运行一次", "rename it in the download so that it reads one way, and run again")
        )
    platform_files.ignored(others, warnings, "不是 Canvas 下载的文件", "not a file of a Canvas download")
    entries = []
    for sid in sorted(set(by_student) | set(unsure)):
        files = by_student.get(sid, [])
        name = next((f.name for f, _ in files if f.name), named.get(sid, ""))
        notes: list[str] = []
        if sid in unsure:
            notes.append(
                _note("文件名有多种读法，可能是你的，也可能是别人的，未评分", "a file name that reads more than one way, as yours or another student's: not graded")
                + ": "
                + submissions._list(unsure[sid])
            )
        if not files:
            entries.append(Entry(sid, None, notes, printable(name or sid), name=printable(name)))
            continue
        texts = [f.filename for f, _ in files if f.attachment is None]
        if texts:
            notes.append(_note("文本或网址提交不评分", "a text entry or URL is not graded") + ": " + submissions._list(texts))
        uploads = [(f, n) for f, n in files if f.attachment is not None]
        given = [(*_resubmitted(f.filename), f.attachment, n) for f, n in uploads]
        entry = platform_files.guarded(sid, name, lambda: platform_files.from_files(root, sid, name, given, work_dir, assignment, notes))
        entry.marked_late, entry.name = any(f.late for f, _ in files), printable(name)
        entries.append(entry)
    return entries
