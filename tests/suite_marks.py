"""What kind of test each test file holds.

``conftest.py`` applies the markers when the tests are collected, so a test
file needs no marker lines of its own, and this table is the one place to
look.

Markers (``tox -e test-fast`` leaves out every test marked with one):

- ``slow``: a file whose tests take minutes in all (the attack catalogue,
  whole batches, every catalogue file graded);
- ``sandbox``: grades in the bubblewrap sandbox (``--sandbox require``) or
  tests the sandbox itself;
- ``docs``: builds the docs site (both editions take about a minute), or
  runs the code of every page;
- ``browser``: drives headless Chromium.
"""

MARKS = {
    "test_attacks.py": ("slow", "sandbox"),
    "test_batch.py": ("slow", "sandbox"),
    "test_batch_db.py": ("slow",),
    "test_catalogue.py": ("slow",),
    "test_class_report.py": ("browser",),
    "test_clean_start.py": ("sandbox",),
    "test_confinement_report.py": ("sandbox",),
    "test_course_notebooks.py": ("slow",),
    "test_cross_student.py": ("slow", "sandbox"),
    "test_degenerate.py": ("slow",),
    "test_docs_browser.py": ("docs", "browser"),
    "test_docs_build.py": ("docs",),
    "test_docs_phone.py": ("docs", "browser"),
    "test_docs_quotes.py": ("docs",),
    "test_docs_sources.py": ("docs",),
    "test_fuzz.py": ("slow", "sandbox"),
    "test_github_classroom.py": ("slow",),
    "test_gradescope.py": ("slow",),
    "test_keyring_and_syscalls.py": ("sandbox",),
    "test_lab.py": ("slow", "browser"),
    "test_limits_per_submission.py": ("slow", "sandbox"),
    "test_lms.py": ("slow",),
    "test_mistake_table.py": ("slow", "docs"),
    "test_new_exercise.py": ("slow",),
    "test_nbgrader_course.py": ("slow",),
    "test_notebook_submissions.py": ("slow",),
    "test_prairielearn.py": ("slow",),
    "test_start_commands.py": ("slow",),
    "test_unseen_inputs.py": ("slow",),
    "test_warm_grader.py": ("sandbox",),
    "test_wheel.py": ("sandbox",),
    "test_write.py": ("slow",),
}

KNOWN = ("slow", "sandbox", "docs", "browser")

# Under pytest-xdist (``-n 2 --dist loadgroup``) a whole file goes to one
# process, so its module fixtures (the attack catalogue's gradings, a
# batch) are made once, and files that share a build made once per process
# (the docs site, see ``docs_site.built_site``) go to one process as a
# group. tox does not install xdist: on the 2-core machine CI uses, two
# pytest processes took as long as one (bench/suite_cpu.py), which keeps
# both processors busy with background work instead (conftest.py).
SHARED_BUILDS = {"built_site(": "docs-site"}


def group_of(path) -> str:
    """The xdist group of a test file (a ``pathlib.Path``): the build it shares, else its own name."""
    text = path.read_text(encoding="utf-8")
    for call, group in SHARED_BUILDS.items():
        if call in text:
            return group
    return path.name


def marks_of(filename: str) -> tuple[str, ...]:
    return MARKS.get(filename, ())
