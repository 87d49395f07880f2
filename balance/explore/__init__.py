"""Live explorers for notebooks (ipywidgets + matplotlib): drag a slider or edit a table cell
and every curve of that rule moves; ``.save("variant.toml")`` keeps the variant.

Install with ``pip install "balance[notebook]"`` (ipywidgets). ``import balance`` does not
import ipywidgets; ``bl.explore`` does, on first use.

>>> import balance as bl
>>> explorer = bl.explore.negotiation()
>>> explorer.rules == bl.load_rules()
True
"""
try:
    import ipywidgets  # noqa: F401
except ImportError as exc:  # pragma: no cover - the notebook extra is missing
    raise ImportError("balance.explore needs ipywidgets: pip install 'balance[notebook]'") \
        from exc

from .base import Explorer
from .core import injuries, negotiation, treatment
from .fights import duel, encounter

__all__ = ["Explorer", "injuries", "negotiation", "treatment", "encounter", "duel"]
