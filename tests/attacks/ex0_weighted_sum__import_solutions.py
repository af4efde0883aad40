"""Attack: import the reference solution by module name.

The child's sys.path holds its private copy of the submission and the Python
installation, not the project: the import fails, 0 points.
"""
from solutions.ex0_weighted_sum import weighted_sum  # noqa: F401
