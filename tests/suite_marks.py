"""What kind of test each test file holds, and which files share a build.

``conftest.py`` applies both when the tests are collected, so a test file
needs no marker lines of its own, and this table is the one place to look.

Markers (``tox -e test-fast`` leaves out every test marked with one):

- ``slow``: a file whose tests take minutes in all (the attack catalogue,
  whole batches, every catalogue file graded);
- ``sandbox``: grades in the bubblewrap sandbox (``--sandbox require``) or
  tests the sandbox itself;
- ``docs``: builds the docs site (both editions take about a minute);
- ``browser``: drives headless Chromium.

Groups: ``tox -e test`` runs the tests in parallel processes (pytest-xdist,
``--dist loadgroup``), a group at a time in one process. A file is a group
of its own: its module fixtures (a release, a class graded, the attack
catalogue started in the background) are made once, not once per process.
Files that share a build made once per process (``docs_site.built_site``)
are one group, so the build is made once in all.
"""

MARKS = {
    "test_attacks.py": ("slow", "sandbox"),
    "test_batch.py": ("slow", "sandbox"),
    "test_catalogue.py": ("slow",),
    "test_class_report.py": ("browser",),
    "test_clean_start.py": ("sandbox",),
    "test_confinement_report.py": ("sandbox",),
    "test_cross_student.py": ("slow", "sandbox"),
    "test_degenerate.py": ("slow",),
    "test_docs_browser.py": ("docs", "browser"),
    "test_docs_build.py": ("docs",),
    "test_docs_phone.py": ("docs", "browser"),
    "test_docs_quotes.py": ("docs",),
    "test_fuzz.py": ("slow", "sandbox"),
    "test_keyring_and_syscalls.py": ("sandbox",),
    "test_limits_per_submission.py": ("slow", "sandbox"),
    "test_mistake_table.py": ("slow", "docs"),
    "test_new_exercise.py": ("slow",),
    "test_start_commands.py": ("slow",),
    "test_unseen_inputs.py": ("slow",),
    "test_write.py": ("slow",),
}

GROUPS = {
    # docs_site.built_site: the student and teacher editions
    "docs-site": ("test_docs_browser.py", "test_docs_build.py", "test_docs_phone.py", "test_docs_quotes.py", "test_mistake_table.py"),
}

KNOWN = ("slow", "sandbox", "docs", "browser")


def marks_of(filename: str) -> tuple[str, ...]:
    return MARKS.get(filename, ())


def group_of(filename: str) -> str:
    for group, files in GROUPS.items():
        if filename in files:
            return group
    return filename
