"""``python -m balance.rules.invariants``: print the invariants' reference page (Markdown)."""
from . import reference

print(reference(), end="")
