"""The architecture of DESIGN.md §1, read from the source with ``ast``.

Every import counts: at module level, inside functions and under
``TYPE_CHECKING``. The rules:

* no modules of ours import each other in a circle;
* the top-level packages point down: ``wire``, ``storage`` and ``catalog``
  import nothing of ours outside themselves, ``executor`` only ``catalog``
  and ``storage``;
* the subpackages of ``sqlext`` and of ``executor`` each import only those
  before them in their order (``LAYERS``);
* only ``storage.sqlite`` imports sqlite3, ``catalog`` does no I/O, and
  ``wire`` and ``catalog`` know nothing of sqlglot;
* every package says in its ``__init__`` what it is for and what it may
  import;
* no two modules share a file name, so a name found in a traceback or an
  import means one thing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
PACKAGES: Final = ("sqlext", "wire", "executor", "catalog", "storage")

MAY_IMPORT: Final = {
    "wire": {"wire"},
    "storage": {"storage"},
    "catalog": {"catalog"},
    "executor": {"executor", "catalog", "storage"},
    "sqlext": set(PACKAGES),
}
"""Top-level package -> the top-level packages of ours it may import."""

LAYERS: Final = {
    "sqlext": ("version", "progress", "sql", "translate", "matview", "compile", "dataflow",
               "session", "durability", "server", "cluster", "spark", "tools", "__main__"),
    "executor": ("codecs", "values", "", "streaming", "ddl", "functions", "pg_catalog"),
}
"""Package -> its parts, lowest first: a part may import itself and the parts
before it. A part is a subpackage or a module directly in the package; ""
stands for all of the package's own modules not listed (executor's core)."""

SQLITE_MODULE: Final = "storage.sqlite"
IO_MODULES: Final = frozenset({"os", "io", "pathlib", "socket", "sqlite3", "subprocess",
                               "shutil", "tempfile", "asyncio", "threading", "selectors",
                               "ssl", "urllib", "http", "logging"})


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def package(self) -> str:
        return self.name.split(".")[0]


@cache
def modules() -> dict[str, Module]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8")))
    return found


def _imported_names(module: Module) -> Iterator[str]:
    """Every dotted name the module imports (``from a.b import c`` gives
    ``a.b.c``, which may be a module or a name in ``a.b``)."""
    is_package = module.path.name == "__init__.py"
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.name.split(".")
                anchor = anchor[:len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


@cache
def dependencies(name: str) -> frozenset[str]:
    """The modules of ours that ``name`` imports."""
    known = modules()
    found = set()
    for dotted in _imported_names(known[name]):
        parts = dotted.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            found.add(".".join(parts))
    found.discard(name)
    # a package's __init__ importing its own submodules is not a dependency
    return frozenset(d for d in found if not d.startswith(name + "."))


def external_imports(module: Module) -> set[str]:
    return {dotted.split(".")[0] for dotted in _imported_names(module)} - set(PACKAGES)


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for neighbour in dependencies(node):
            if neighbour not in index:
                visit(neighbour)
                low[node] = min(low[node], low[neighbour])
            elif neighbour in on_stack:
                low[node] = min(low[node], index[neighbour])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in modules():
        if name not in index:
            visit(name)
    return found


def layer(name: str) -> tuple[str, int] | None:
    """(package, position of the module's part in ``LAYERS``), for modules of
    a layered package."""
    parts = name.split(".")
    order = LAYERS.get(parts[0])
    if order is None or len(parts) == 1:
        return None
    part = parts[1] if parts[1] in order else ""
    if part not in order:
        raise AssertionError(f"{name}: {parts[0]}.{parts[1]} is not in LAYERS")
    return parts[0], order.index(part)


def test_no_import_cycles() -> None:
    assert cycles() == []


@pytest.mark.parametrize("package", PACKAGES)
def test_top_level_packages_import_downwards(package: str) -> None:
    wrong = sorted(f"{name} -> {dependency}" for name, module in modules().items()
                   if module.package == package for dependency in dependencies(name)
                   if dependency.split(".")[0] not in MAY_IMPORT[package])
    assert wrong == []


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_subpackages_import_only_the_layers_below(package: str) -> None:
    wrong = []
    for name in modules():
        placed = layer(name)
        if placed is None or placed[0] != package:
            continue
        for dependency in dependencies(name):
            other = layer(dependency)
            if other is not None and other[0] == package and other[1] > placed[1]:
                wrong.append(f"{name} -> {dependency}")
    assert sorted(wrong) == []


def test_only_one_module_touches_sqlite3() -> None:
    users = sorted(name for name, module in modules().items()
                   if "sqlite3" in external_imports(module))
    assert users == [SQLITE_MODULE]


def test_catalog_does_no_io_and_knows_no_sql_text() -> None:
    for name, module in modules().items():
        if module.package != "catalog":
            continue
        assert not external_imports(module) & (IO_MODULES | {"sqlglot"}), name
        calls = {node.func.id for node in ast.walk(module.tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert "open" not in calls and "print" not in calls, name


def test_wire_knows_no_sql_meaning() -> None:
    users = sorted(name for name, module in modules().items()
                   if module.package == "wire" and "sqlglot" in external_imports(module))
    assert users == []


def test_every_package_says_what_it_is_for() -> None:
    for name, module in modules().items():
        if module.path.name != "__init__.py":
            continue
        docstring = ast.get_docstring(module.tree) or ""
        assert docstring, f"{name} has no docstring"
        if name in PACKAGES or layer(name) is not None:
            assert "import" in docstring.lower(), f"{name} does not say what it may import"


def test_no_two_modules_share_a_name() -> None:
    by_name: dict[str, list[str]] = {}
    for name, module in modules().items():
        if module.path.name != "__init__.py":
            by_name.setdefault(module.path.name, []).append(name)
    assert {file: names for file, names in by_name.items() if len(names) > 1} == {}


def test_the_rules_see_every_kind_of_import() -> None:
    """The reader itself: an import inside a function and one under
    TYPE_CHECKING are dependencies too."""
    source = ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from catalog.schema import Catalog\n"
              "def f():\n    from storage import sqlite\n    import wire.messages\n")
    module = Module("executor.example", ROOT / "executor" / "example.py", ast.parse(source))
    assert {"catalog.schema.Catalog", "storage.sqlite", "wire.messages"} <= set(
        _imported_names(module))
