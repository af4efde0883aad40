"""The operator provider cosmic-ray loads from this plugin's entry point (pyproject.toml)."""

from cosmic_ray_torch.operators import OPERATORS


class OperatorProvider:
    """cosmic-ray's view of this plugin: the names of its operators, and each operator class by name."""

    def __iter__(self):
        return iter(OPERATORS)

    def __getitem__(self, name):
        return OPERATORS[name]
