"""Rules as data: the bundled TOML files, variants over them, and their validation."""
from ..errors import RulesError
from .loader import Rules, bundled_variants, default_rules, load_rules, plain, resolve

__all__ = ["Rules", "RulesError", "load_rules", "default_rules", "resolve", "bundled_variants", "plain"]
