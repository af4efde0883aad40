"""Two editions from one source: the student site and the teacher site (``-t teacher``).

The teacher-only pages live in ``docs/answers/`` and are excluded from the
student build in conf.py, so they are never read, indexed or copied there.
Inside shared pages:

- ``{teacher-only}`` blocks are parsed only in the teacher edition (in the
  student edition their content never reaches the doctree);
- ``{teacher-toctree}`` is a toctree that exists only in the teacher edition.

As a last guard, the student build fails if any page depends on a file in
``solutions/`` or ``checks/hidden/``.
"""

from pathlib import Path

from sphinx.directives.other import TocTree
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
SECRET = [ROOT / "solutions", ROOT / "checks" / "hidden"]


class TeacherOnly(SphinxDirective):
    has_content = True

    def run(self):
        if not self.config.teacher_edition:
            return []
        return self.parse_content_to_nodes()


class TeacherTocTree(TocTree):
    def run(self):
        return super().run() if self.config.teacher_edition else []


def no_secrets(app, env):
    if app.config.teacher_edition:
        return
    for docname, deps in env.dependencies.items():
        for dep in deps:
            path = (Path(env.srcdir) / dep).resolve()
            if any(path.is_relative_to(secret) for secret in SECRET):
                logger.warning("the student edition must not include %s", path, location=docname)


def setup(app):
    app.add_config_value("teacher_edition", False, "env", types=[bool])
    app.add_directive("teacher-only", TeacherOnly)
    app.add_directive("teacher-toctree", TeacherTocTree)
    app.connect("env-check-consistency", no_secrets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
