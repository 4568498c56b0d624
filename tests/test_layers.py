"""The package graph is one-way: read from the source with ``ast``, counting imports inside functions.

The layers are those of ARCHITECTURE.md. A module may import its own unit
(a top-level module or a subpackage), units of a lower layer, and units of
its own layer as long as the graph between units stays acyclic.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import ek

SRC = Path(ek.__file__).parent

ARCHITECTURE = Path(__file__).resolve().parents[1] / "ARCHITECTURE.md"


def layers_from_architecture() -> dict[str, int]:
    """Each unit and its layer, read from the table in ARCHITECTURE.md (``| 3 score | `ek.scorer` | ...``)."""
    layers: dict[str, int] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\|\s*(\d+)\s+\w+\s*\|([^|]*)\|", line)
        if match:
            for unit in re.findall(r"`(ek[\w.]*)`", match.group(2)):
                layers[unit] = int(match.group(1))
    return layers


#: Each unit of ek (a top-level module or subpackage) and its layer, bottom up.
LAYERS = layers_from_architecture()

#: Where a deferred (function-level) import of another unit is allowed: start-up speed only.
LAZY_LOADERS = {"ek", "ek.cli"}


def module_name(path: Path) -> str:
    parts = ["ek", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """(imported ek module, deferred?) for every import in the file; ``from X import y`` counts X and X.y."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        deferred = id(node) not in top_level
        if isinstance(node, ast.Import):
            found += [(alias.name, deferred) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.append((source, deferred))
            found += [(f"{source}.{alias.name}", deferred) for alias in node.names]
    return [(name, deferred) for name, deferred in found if name == "ek" or name.startswith("ek.")]


def unit_graph() -> tuple[dict[str, set[str]], list[str], list[str]]:
    """Edges between units, plus the upward and the deferred cross-unit imports found on the way."""
    modules = {module_name(p) for p in SRC.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    upward: list[str] = []
    deferred_imports: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        source = module_name(path)
        src_unit = unit_of(source) if source != "ek" else "ek"
        for target, deferred in imports_of(path):
            if target not in modules and target != "ek":
                continue  # ``from ek.x import name``: the name, not a module
            dst_unit = unit_of(target) if target != "ek" else "ek"
            if dst_unit == src_unit:
                continue
            edges.setdefault(src_unit, set()).add(dst_unit)
            if LAYERS[dst_unit] > LAYERS[src_unit]:
                upward.append(f"{source} (layer {LAYERS[src_unit]}) imports {target} (layer {LAYERS[dst_unit]})")
            if deferred and src_unit not in LAZY_LOADERS:
                deferred_imports.append(f"{source} imports {target} inside a function")
    return edges, upward, deferred_imports


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(module_name(p)) if module_name(p) != "ek" else "ek" for p in SRC.rglob("*.py")}
    assert units - set(LAYERS) == set(), "give each new module or subpackage a layer in ARCHITECTURE.md"
    assert set(LAYERS) - units == set(), "ARCHITECTURE.md names a unit that does not exist"


def test_no_unit_imports_a_higher_layer() -> None:
    _, upward, _ = unit_graph()
    assert upward == []


def test_the_unit_graph_has_no_cycle() -> None:
    edges, _, _ = unit_graph()
    assert find_cycle(edges) is None


@pytest.mark.slow
def test_no_deferred_import_crosses_units_outside_the_lazy_loaders() -> None:
    _, _, deferred = unit_graph()
    assert deferred == []


def test_the_checker_sees_a_cycle_and_an_upward_import() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


def test_generated_modules_import_only_the_runtime(tmp_path: Path) -> None:
    from ek.codegen import generate
    from ek.grammar import load

    source = generate(load(Path(__file__).parents[1] / "schemas" / "travel-v2.ek"))
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ek"):
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules |= {a.name for a in node.names if a.name.startswith("ek")}
    assert modules and all(m.startswith("ek.runtime.") for m in modules)


LAZY_PACKAGES = ("ek", "ek.runtime")


@pytest.mark.parametrize(("package", "name"), [(package, name) for package in LAZY_PACKAGES
                                               for name in sorted(importlib.import_module(package).__all__)
                                               if name != "__version__"])
def test_from_a_lazy_package_import_gives_the_object_never_a_module(package: str, name: str) -> None:
    """A submodule named like an exported name would replace it once imported (``ek.evaluate``, ``ek.runtime.resolve``)."""
    for info in pkgutil.walk_packages(ek.__path__, "ek."):
        if info.name != "ek.__main__":
            importlib.import_module(info.name)
    value = getattr(importlib.import_module(package), name)
    assert not isinstance(value, type(ek)), f"{package}.{name} is the module {value.__name__}"
    exec_ns: dict[str, object] = {}
    exec(f"from {package} import {name}", exec_ns)  # noqa: S102 - a fixed, known statement
    assert exec_ns[name] is value


#: ``name.py`` in a row of the layers table, and ``ek/x/y.py`` anywhere: a module of that row's units, a path.
_FILE_IN_ROW = re.compile(r"(?<![\w/.-])(\w+)\.py\b")
_SOURCE_PATH = re.compile(r"(?<![\w/.-])ek/([\w/]+)\.py\b")
#: A dotted name, ``ek.scorer.assign`` or ``ek.runtime.resolve`` (a module, or a name in one).
_DOTTED = re.compile(r"(?<![\w/.-])(ek(?:\.\w+)+)")


def all_modules() -> set[str]:
    """Every module of the package by dotted name, ``ek.runtime.__init__`` for a package's own file."""
    return {".".join(["ek", *p.relative_to(SRC).with_suffix("").parts]) for p in SRC.rglob("*.py")}


def architecture_mentions(text: str, modules: set[str]) -> tuple[set[str], list[str]]:
    """The modules ARCHITECTURE.md names, and each mention that names nothing that exists.

    A module is named by its dotted name (``ek.scorer.assign``, or a name in it: ``ek.agents.base.Step``), as a
    unit of the layers table (a package names its ``__init__``), as ``name.py`` in the row of its unit, or by its
    path under ``src`` (``ek/runtime/__init__.py``).
    """
    def as_module(name: str) -> str | None:
        return name if name in modules else name + ".__init__" if name + ".__init__" in modules else None

    named: set[str] = set()
    dead: list[str] = []
    for line in text.splitlines():
        row = re.match(r"\|\s*\d+\s+\w+\s*\|([^|]*)\|(.*)$", line)
        if not row:
            continue
        units = re.findall(r"`(ek[\w.]*)`", row.group(1))
        named.update(module for module in map(as_module, units) if module is not None)
        for stem in _FILE_IN_ROW.findall(row.group(2)):
            found = [f"{unit}.{stem}" for unit in units if f"{unit}.{stem}" in modules]
            named.update(found)
            if not found:
                dead.append(f"{stem}.py in the row of {', '.join(units)}")
    for path in _SOURCE_PATH.findall(text):
        module = "ek." + path.replace("/", ".")
        named.add(module) if module in modules else dead.append(f"ek/{path}.py")
    for dotted in set(_DOTTED.findall(text)):
        parts = dotted.split(".")
        prefixes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        module = next((m for m in map(as_module, prefixes) if m is not None), None)
        if module is None:
            dead.append(dotted)
            continue
        named.add(module)
        rest = parts[len(module.removesuffix(".__init__").split(".")):]
        if rest and module != "ek.__main__":
            obj: object = importlib.import_module(module.removesuffix(".__init__"))
            for attr in rest:
                if not hasattr(obj, attr):
                    dead.append(dotted)
                    break
                obj = getattr(obj, attr)
    return named, dead


def test_every_module_is_named_in_architecture() -> None:
    """Each module has its room: named in ARCHITECTURE.md, so a newcomer finds what it owns."""
    modules = all_modules()
    named, _ = architecture_mentions(ARCHITECTURE.read_text(encoding="utf-8"), modules)
    assert sorted(modules - named) == [], "name these modules in ARCHITECTURE.md, in the row of their unit"


def test_every_module_architecture_names_exists() -> None:
    _, dead = architecture_mentions(ARCHITECTURE.read_text(encoding="utf-8"), all_modules())
    assert sorted(dead) == [], "ARCHITECTURE.md names modules (or names in them) that do not exist"


def test_the_mention_checker_sees_a_missing_and_a_dead_module() -> None:
    modules = {"ek.__init__", "ek.calls", "ek.scorer.__init__", "ek.scorer.assign", "ek.scorer.metric"}
    text = ("| 0 base | `ek.calls` | the call |\n"
            "| 3 score | `ek.scorer` | `assign.py` (assignments), `gone.py` (nothing) |\n"
            "See `ek.scorer.vanished` and `ek/scorer/also_gone.py`.\n")
    named, dead = architecture_mentions(text, modules)
    assert modules - named == {"ek.__init__", "ek.scorer.metric"}
    assert sorted(dead) == ["ek.scorer.vanished", "ek/scorer/also_gone.py", "gone.py in the row of ek.scorer"]
