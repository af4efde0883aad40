"""Reading a submission folder, without running or changing anything in it.

Each exercise file is read once, as bytes, by a descriptor opened with
O_NOFOLLOW, and decoded as Python decodes it (UTF-8, or what its coding line
says); what is wrong with a file (missing, a symlink, a hard link to one of
the grader's own files, too big, not readable as Python reads it) becomes
that exercise's problem only.
"""
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field

from grader.exercises import EXERCISES
from grader.text import Text, visible

MAX_FILE_BYTES = 1024 * 1024


@dataclass
class ExerciseFile:
    exercise_id: str
    display_name: str  # the path as the student knows it, for messages
    source: bytes | None = None
    problem: Text | None = None  # why this file cannot be run, if it cannot


@dataclass
class Submission:
    root: str
    files: dict[str, ExerciseFile] = field(default_factory=dict)
    _shared_copy: str | None = field(default=None, repr=False)

    def private_copy(self, parent_dir: str, shared: bool = False) -> str:
        """Write the readable files into a fresh folder under ``parent_dir``:
        the child imports from there, so the submission folder is never written
        (no ``__pycache__``, no edits by one exercise to another).

        ``shared``: no child can write the folder (the sandbox binds it
        read-only), so one copy serves every exercise of the submission; it is
        written by the first call. Without the sandbox a child can write into
        its folder, and each exercise needs a fresh one."""
        if shared and self._shared_copy is not None and os.path.dirname(self._shared_copy) == parent_dir:
            return self._shared_copy
        target = tempfile.mkdtemp(prefix="ex-", dir=parent_dir)
        os.chmod(target, 0o755)  # readable inside the sandbox, whose user is not ours
        for f in self.files.values():
            if f.source is not None:
                with open(os.path.join(target, f.exercise_id + ".py"), "wb") as out:
                    out.write(f.source)
        if shared:
            self._shared_copy = target
        return target


def teacher_files(folders) -> dict:
    """Every regular file under ``folders`` (the solutions and the checks):
    (st_dev, st_ino) -> the paths it has there. A submitted file that is one
    of them under another path (a hard link, or a folder linked to them) is
    refused; at its own path it is the teacher grading the reference."""
    found: dict = {}
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in filenames:
                path = os.path.abspath(os.path.join(dirpath, name))
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    found.setdefault((info.st_dev, info.st_ino), set()).add(path)
    return found


def _read(path: str, display: str, exercise_id: str, teacher: dict | None = None) -> ExerciseFile:
    f = ExerciseFile(exercise_id, display)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        f.problem = Text(f"找不到文件 {display}", f"file not found: {display}")
        return f
    except OSError as exc:
        f.problem = Text(f"无法读取 {display}：{exc.strerror}", f"cannot read {display}: {exc.strerror}")
        return f
    if stat.S_ISLNK(info.st_mode):
        f.problem = Text(
            f"{display} 是符号链接，不予评分：请提交真正的文件",
            f"{display} is a symbolic link and is not graded: submit the file itself",
        )
        return f
    if not stat.S_ISREG(info.st_mode):
        f.problem = Text(f"{display} 不是普通文件", f"{display} is not a regular file")
        return f
    if info.st_size > MAX_FILE_BYTES:
        f.problem = Text(
            f"{display} 太大（{info.st_size} 字节，上限 {MAX_FILE_BYTES}）",
            f"{display} is too large ({info.st_size} bytes, the limit is {MAX_FILE_BYTES})",
        )
        return f
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            opened = os.fstat(fh.fileno())
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        f.problem = Text(f"无法读取 {display}：{exc.strerror}", f"cannot read {display}: {exc.strerror}")
        return f
    # A hard link to the reference solution reads as the reference itself:
    # it must not earn its points (found by
    # tests/attacks/ex0_weighted_sum__hardlink.py). Checked on the file that
    # was opened, so swapping the file after the lstat above does not help.
    own_paths = (teacher or {}).get((opened.st_dev, opened.st_ino))
    if own_paths and os.path.abspath(path) not in own_paths:
        f.problem = Text(
            f"{display} 是评分程序自己的文件（参考答案或检查）换了个名字（硬链接），不予评分：请提交你自己写的文件",
            f"{display} is one of the grader's own files (a solution or a check) under another name (a hard link) and is not graded: submit a file you wrote",
        )
        return f
    try:
        text = python_source(data)
    except UnicodeDecodeError as exc:
        if exc.encoding.replace("-", "").lower() in ("utf8", "utf8sig"):
            f.problem = Text(
                f"{display} 不是 UTF-8 编码（第 {exc.start} 个字节出错）：请用 UTF-8 保存（或者在第一行声明它的编码，比如 # -*- coding: gbk -*-）",
                f"{display} is not UTF-8 (bad byte at offset {exc.start}): save it as UTF-8 (or declare its coding in its first line, such as # -*- coding: gbk -*-)",
            )
        else:
            f.problem = Text(
                f"{display} 声明的编码是 {exc.encoding}，但第 {exc.start} 个字节不是 {exc.encoding}：请用 UTF-8 保存",
                f"{display} declares the coding {exc.encoding}, but the byte at offset {exc.start} is not {exc.encoding}: save it as UTF-8",
            )
        return f
    except SyntaxError as exc:  # a coding line Python does not know
        f.problem = Text(
            f"{display} 的编码声明 Python 读不了（{exc.msg}）：请用 UTF-8 保存，并删掉 coding 那一行",
            f"Python cannot read {display}'s coding line ({exc.msg}): save it as UTF-8 and remove the coding line",
        )
        return f
    # From here on the file is UTF-8 text: its coding line, if any, is
    # ignored by compile() for text, and the report and the redaction read it.
    f.source = text.encode("utf-8")
    return f


def python_source(data: bytes) -> str:
    """The text of a Python file as Python reads it (PEP 263, as
    ``tokenize.open`` does): UTF-8 unless a coding line (``# -*- coding:
    gbk -*-``, which Chinese Windows editors still write) or a byte-order mark
    says otherwise. Raises UnicodeDecodeError (with the encoding) or
    SyntaxError (a coding line naming no encoding Python has)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not str(exc.msg).startswith("unknown encoding"):
            return data.decode("utf-8")  # no coding line and not UTF-8: the error says where
        raise
    return data.decode(encoding)


def load(root: str, display_root: str | None = None, teacher: dict | None = None) -> Submission:
    """``teacher``: ``teacher_files()`` of the grader's solutions and checks.
    ``display_root``: the folder as messages name it; its control characters
    are made visible (a student names their folders, and the name reaches the
    teacher's terminal in every message about a file)."""
    display_root = visible(root if display_root is None else display_root, name=True)
    sub = Submission(root)
    for ex in EXERCISES:
        sub.files[ex.id] = _read(
            os.path.join(root, ex.filename), os.path.join(display_root, ex.filename), ex.id, teacher
        )
    return sub
