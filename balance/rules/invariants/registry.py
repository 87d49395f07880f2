"""The registry of cross-field invariants: :func:`invariant` registers a check under its name,
with the rules paths it ties; :data:`REGISTRY` keeps them in the order they are checked."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Check", "Invariant", "REGISTRY", "invariant"]

Check = Callable[[dict, Callable[[str], str]], None]


@dataclass(frozen=True)
class Invariant:
    """One registered invariant: its ``name``, the rules paths it ``ties``, its check."""

    name: str
    ties: tuple[str, ...]
    check: Check

    @property
    def summary(self) -> str:
        """The docstring's first paragraph (what must hold)."""
        return _paragraphs(self.check)[0]

    @property
    def fix(self) -> str:
        """The docstring's ``Fix:`` paragraph."""
        return next((p[4:].strip() for p in _paragraphs(self.check) if p.startswith("Fix:")), "")


#: every invariant, by name, in the order they are checked
REGISTRY: dict[str, Invariant] = {}


def _paragraphs(func: Callable) -> list[str]:
    doc = inspect.getdoc(func) or ""
    return [" ".join(p.split()) for p in doc.split("\n\n") if p.strip()]


def invariant(name: str, *ties: str) -> Callable[[Check], Check]:
    """Register ``(data, source_of) -> None`` as the invariant ``name`` tying ``ties``."""
    def register(check: Check) -> Check:
        if name in REGISTRY:
            raise RuntimeError(f"invariant {name!r} registered twice")
        REGISTRY[name] = Invariant(name, ties, check)
        return check
    return register
