"""The package's shape: imports run one way, from the rules data up to the command line.

Every ``import`` in ``balance/`` counts, at the top of a module or inside a function: an import
hidden in a function is still a dependency. Two checks, read from the source with ``ast``:

- no module reaches a higher layer than its own (:data:`LAYERS`);
- no cycle among modules, even inside one layer.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "balance"

#: Layers, lowest first: a module may import its own layer and the layers below it.
LAYERS = (
    ("errors", "text", "names", "_atomic", "labels", "_lazy"),  # words, one-line errors, lazy names
    ("rng", "budgets", "grids"),                         # the rng convention, work budgets, chunked grids
    ("dice",),                                           # dice expressions
    ("rules", ""),                                       # rules data; "" = the package itself
    ("montecarlo",),                                     # the engine
    ("core",),                                           # the core rules
    ("guide", "percentile"),                             # the GM guide, the percentile rules
    ("plots",),                                          # pictures of results
    ("regression",),                                     # snapshots, diffs, checks
    ("tune",),                                           # solving for targets, sensitivity
    ("report", "explore"),                               # what designers read and drive
    ("bench",),                                          # the benchmark's kernels
    ("cli", "__main__"),                                 # the command line
)
RANK = {name: i for i, names in enumerate(LAYERS) for name in names}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def imports(name: str) -> set[str]:
    """Every ``balance`` module that module ``name`` imports, anywhere in its source."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from pkg import sub`` depends on the submodule; ``from pkg import name`` on pkg
            candidates = [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target
                          for a in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        for c in candidates:
            while c and c not in MODULES and "." in c:
                c = c.rsplit(".", 1)[0]
            if c in MODULES and c != name:
                found.add(c)
    return found


GRAPH = {name: imports(name) for name in MODULES}


def layer(name: str) -> int:
    part = name.split(".")[1] if "." in name else ""
    if part not in RANK:
        raise AssertionError(f"{name}: its folder {part!r} has no layer in LAYERS")
    return RANK[part]


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def test_imports_run_one_way():
    upward = sorted(f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
                    for a, targets in GRAPH.items() for b in targets
                    # importing a package runs its __init__, one layer at most
                    if layer(b) > layer(a))
    assert not upward, "imports that run back up the layers:\n" + "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_import_cycle():
    found = cycles(GRAPH)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_cycles(graph, expected):
    assert cycles(graph) == expected
