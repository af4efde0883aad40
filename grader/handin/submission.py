"""Reading a submission folder, without running or changing anything in it.

Each exercise file is read once, as bytes, by a descriptor opened with
O_NOFOLLOW, and decoded as Python decodes it (UTF-8, or what its coding line
says); what is wrong with a file (missing, a symlink, a hard link to one of
the grader's own files, too big, not readable as Python reads it) becomes
that exercise's problem only.

An exercise may be handed in as a Jupyter notebook, ``<id>.ipynb``: its
answer cells' code is graded as the file (``grader/handin/notebook_source.py``),
and messages name its lines by cell. When both ``<id>.py`` and
``<id>.ipynb`` are there, the ``.py`` is graded unless it is still the
course's untouched stub (a student who works in Jupyter keeps the stubs
they were given); a note says which one was graded.
"""

import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field

from grader.exercises import EXERCISES
from grader.files import EXERCISES_DIR
from grader.handin import notebook_source
from grader.text import Text, visible

MAX_FILE_BYTES = 1024 * 1024  # a .py file, or the code of a notebook's cells
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024  # a notebook keeps its outputs (figures, as base64)


@dataclass
class ExerciseFile:
    exercise_id: str
    display_name: str  # the path as the student knows it, for messages
    source: bytes | None = None
    problem: Text | None = None  # why this file cannot be run, if it cannot
    notes: list[Text] = field(default_factory=list)  # what the student should know about how it was read
    notebook: notebook_source.Code | None = None  # a notebook's cells, where its code came from
    missing: bool = False  # neither the .py nor the notebook is there

    def where(self, n: int) -> Text:
        """Line ``n`` of the graded code, as the student finds it in their file."""
        if self.notebook is not None:
            return self.notebook.where(n)
        return Text(f"{self.display_name} 第 {n} 行", f"{self.display_name}, line {n}")


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
    """A ``.py`` file, decoded as Python decodes it."""
    f, data = _open(path, display, exercise_id, teacher, MAX_FILE_BYTES)
    if data is not None:
        _decode(f, data)
    return f


def _read_notebook(path: str, display: str, exercise_id: str, teacher: dict | None = None) -> ExerciseFile:
    """A notebook, as the code of its answer cells."""
    f, data = _open(path, display, exercise_id, teacher, MAX_NOTEBOOK_BYTES)
    if data is None:
        return f
    try:
        f.notebook = notebook_source.read(data, display, exercise_id, max_code=MAX_FILE_BYTES)
    except notebook_source.NotebookError as exc:
        f.problem = exc.text
        return f
    surrogate = _lone_surrogate(f.notebook.source, f.where)
    if surrogate is not None:
        f.problem = surrogate
        return f
    code = f.notebook.source.encode("utf-8")
    if len(code) > MAX_FILE_BYTES:
        f.problem = notebook_source.too_much_code(display, f"{len(code)} 字节", f"{len(code)} bytes", MAX_FILE_BYTES)
        return f
    f.source, f.notes = code, list(f.notebook.notes)
    return f


def _open(path: str, display: str, exercise_id: str, teacher: dict | None, limit: int) -> tuple[ExerciseFile, bytes | None]:
    """The file's bytes, or None and the file's problem."""
    f = ExerciseFile(exercise_id, display)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        f.problem = Text(f"找不到文件 {display}", f"file not found: {display}")
        return f, None
    except OSError as exc:
        f.problem = Text(f"无法读取 {display}：{exc.strerror}", f"cannot read {display}: {exc.strerror}")
        return f, None
    if stat.S_ISLNK(info.st_mode):
        f.problem = Text(
            f"{display} 是符号链接，不予评分：请提交真正的文件",
            f"{display} is a symbolic link and is not graded: submit the file itself",
        )
        return f, None
    if not stat.S_ISREG(info.st_mode):
        f.problem = Text(f"{display} 不是普通文件", f"{display} is not a regular file")
        return f, None
    if info.st_size > limit:
        f.problem = Text(
            f"{display} 太大（{info.st_size} 字节，上限 {limit}）",
            f"{display} is too large ({info.st_size} bytes, the limit is {limit})",
        )
        return f, None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            opened = os.fstat(fh.fileno())
            data = fh.read(limit + 1)
    except OSError as exc:
        f.problem = Text(f"无法读取 {display}：{exc.strerror}", f"cannot read {display}: {exc.strerror}")
        return f, None
    if len(data) > limit:  # it grew after the lstat above
        f.problem = Text(f"{display} 太大（上限 {limit} 字节）", f"{display} is too large (the limit is {limit} bytes)")
        return f, None
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
        return f, None
    return f, data


def _decode(f: ExerciseFile, data: bytes) -> None:
    display = f.display_name
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
        return
    except SyntaxError as exc:  # a coding line Python does not know
        f.problem = Text(
            f"{display} 的编码声明 Python 读不了（{exc.msg}）：请用 UTF-8 保存，并删掉 coding 那一行",
            f"Python cannot read {display}'s coding line ({exc.msg}): save it as UTF-8 and remove the coding line",
        )
        return
    surrogate = _lone_surrogate(text, f.where)
    if surrogate is not None:
        f.problem = surrogate
        return
    # From here on the file is UTF-8 text: its coding line, if any, is
    # ignored by compile() for text, and the report and the redaction read it.
    f.source = text.encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(text: str, where) -> Text | None:
    """Text that holds half of a UTF-16 pair (U+D800 to U+DFFF) is not
    Unicode: Python can neither compile it nor write it as UTF-8. It comes in
    as a JSON escape in a notebook (``"\\ud800"``) or through a coding line
    whose codec makes one (``utf-7``, ``unicode_escape``)."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    place = where(text.count("\n", 0, found.start()) + 1)
    code = f"U+{ord(found.group()):04X}"
    return Text(
        f"{place.zh}有一个落单的代理字符 {code}：它是半个 UTF-16 字符，不是有效的 Unicode，Python 运行不了这段代码。删掉它，或者重新输入那个字符",
        f"{place.en} holds a lone surrogate, {code}: half of a UTF-16 character, not valid Unicode, so Python cannot run this code. Delete it, or type that character again",
    )


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
        try:
            sub.files[ex.id] = _exercise_file(root, display_root, ex, teacher)
        except Exception as exc:  # noqa: BLE001 - a file no reader above foresaw costs its exercise only
            display = os.path.join(display_root, ex.filename)
            sub.files[ex.id] = ExerciseFile(
                ex.id,
                display,
                problem=Text(
                    f"{display}（或 {ex.notebook}）读不了（{type(exc).__name__}），不予评分：请重新保存后再交",
                    f"{display} (or {ex.notebook}) could not be read ({type(exc).__name__}) and is not graded: save it again and hand it in again",
                ),
            )
    return sub


def _exercise_file(root: str, display_root: str, ex, teacher: dict | None) -> ExerciseFile:
    py = _read(os.path.join(root, ex.filename), os.path.join(display_root, ex.filename), ex.id, teacher)
    notebook_path = os.path.join(root, ex.notebook)
    if not os.path.lexists(notebook_path):
        if not os.path.lexists(os.path.join(root, ex.filename)):
            # Neither: say both names (a folder of notebooks is read as well as one of .py files).
            py.missing = True
            py.problem = Text(f"找不到 {py.display_name}，也没有 {ex.notebook}", f"file not found: {py.display_name} (nor {ex.notebook})")
        return py
    notebook = _read_notebook(notebook_path, os.path.join(display_root, ex.notebook), ex.id, teacher)
    return _one_of(py, notebook, os.path.lexists(os.path.join(root, ex.filename)))


def _one_of(py: ExerciseFile, notebook: ExerciseFile, py_exists: bool) -> ExerciseFile:
    """The file graded when a notebook is there: the notebook, unless a
    ``.py`` is there too that is not the untouched stub."""
    if not py_exists:
        return notebook
    py_name, nb_name = os.path.basename(py.display_name), os.path.basename(notebook.display_name)
    if py.source is not None and _is_stub(py.exercise_id, py.source):
        notebook.notes.insert(
            0,
            Text(
                f"{py_name} 和 {nb_name} 都在：评的是 {nb_name}，因为 {py_name} 还是没动过的题目",
                f"both {py_name} and {nb_name} are here: {nb_name} was graded, as {py_name} is still the untouched stub",
            ),
        )
        return notebook
    py.notes.insert(
        0,
        Text(
            f"{py_name} 和 {nb_name} 都在：评的是 {py_name}，{nb_name} 没有评（两个都在时评 .py，除非它还是没动过的题目）",
            f"both {py_name} and {nb_name} are here: {py_name} was graded, not {nb_name} (when both are there, the .py is graded unless it is the untouched stub)",
        ),
    )
    return py


def _is_stub(exercise_id: str, source: bytes) -> bool:
    """Whether ``source`` is the course's stub for the exercise, as released
    (line ends and trailing spaces aside)."""
    try:
        with open(os.path.join(EXERCISES_DIR, exercise_id + ".py"), "rb") as f:
            stub = f.read()
    except OSError:
        return False
    return _normalised(stub) == _normalised(source)


def _normalised(data: bytes) -> list[bytes]:
    return [line.rstrip() for line in data.replace(b"\r\n", b"\n").strip().split(b"\n")]
