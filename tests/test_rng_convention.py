"""One randomness convention (balance/rng.py): every public function of the package spells its
``seed``/``rng`` parameter one way. A new function with ``rng=None``, ``seed: Any`` or an
unannotated seed fails here, naming it."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest

import balance as bl

#: where a seed is a master seed, a whole number each metric's stream is derived from by name and
#: that is written into a file (regression snapshots, tuning, report folders, the command line):
#: ``seed: int`` (``int | None``: "the baseline's")
RECORDED = ("balance.regression", "balance.tune", "balance.report", "balance.cli")


def _modules() -> list[types.ModuleType]:
    seen: dict[str, types.ModuleType] = {}
    for name in bl._MODULES:
        module = getattr(bl, name)
        seen[module.__name__] = module
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), module.__name__ + "."):
            if not any(part.startswith("_") for part in info.name.split(".")[1:]):
                seen[info.name] = importlib.import_module(info.name)
    return [seen[k] for k in sorted(seen)]


def _public_callables(module: types.ModuleType):
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name, None)
        if not getattr(obj, "__module__", "").startswith("balance"):
            continue
        if inspect.isfunction(obj):
            yield f"{obj.__module__}.{obj.__qualname__}", obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__call__":
                    continue
                member = getattr(member, "__func__", member)  # staticmethod, classmethod
                if inspect.isfunction(member):
                    yield f"{obj.__module__}.{member.__qualname__}", member


def _problem(where: str, p: inspect.Parameter) -> str | None:
    ann = p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation)
    if p.name == "rng":
        if ann != "np.random.Generator" or p.default is not inspect.Parameter.empty:
            return "rng: np.random.Generator (a sampler's generator, no default)"
    elif p.name == "seed":
        if ann == "RNGLike":
            if p.default is None or p.default is inspect.Parameter.empty \
                    or type(p.default) is int:
                return None
            return "seed: RNGLike = None"
        if where.startswith(RECORDED) and ann in ("int", "int | None"):
            return None
        if where.startswith("balance.rng.") and ann == "object":  # check_rng validates anything
            return None
        return "seed: RNGLike = None"
    return None


def _violations() -> tuple[list[str], int]:
    found, checked = [], 0
    for module in _modules():
        for where, fn in _public_callables(module):
            for p in inspect.signature(fn).parameters.values():
                if p.name in ("seed", "rng"):
                    checked += 1
                    want = _problem(where, p)
                    if want:
                        ann = p.annotation if p.annotation is not inspect.Parameter.empty else "-"
                        found.append(f"{where}({p.name}: {ann}, default "
                                     f"{'-' if p.default is inspect.Parameter.empty else p.default!r}"
                                     f"): want {want}")
    return sorted(set(found)), checked


def test_every_seed_and_rng_parameter_follows_the_convention():
    found, checked = _violations()
    assert checked > 30  # the walk reaches the package (not a vacuous pass)
    assert not found, "seed/rng parameters off the convention (balance/rng.py):\n" + "\n".join(found)


@pytest.mark.parametrize("source, bad", [
    ("def f(n, rng=None): ...", True),
    ("def f(n, rng: RNGLike = None): ...", True),
    ("def f(n, rng: np.random.Generator): ...", False),
    ("def f(*, seed=None): ...", True),
    ("def f(*, seed: Any = None): ...", True),
    ("def f(*, seed: RNGLike = None): ...", False),
    ("def f(*, seed: int = 0): ...", True),
])
def test_the_rule_itself(source, bad):
    namespace: dict = {}
    exec("from __future__ import annotations\n" + source, namespace)
    params = [p for p in inspect.signature(namespace["f"]).parameters.values()
              if p.name in ("seed", "rng")]
    assert (_problem("balance.core.x.f", params[0]) is not None) is bad
