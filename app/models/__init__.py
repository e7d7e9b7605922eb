"""Qt item models over the core's immutable results, plus their toolkit-free display helpers."""

from .problems_model import ProblemsModel, kind_label
from .results_model import Col, ResultsModel, Role

__all__ = ["Col", "ProblemsModel", "ResultsModel", "Role", "kind_label"]
