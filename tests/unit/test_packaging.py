"""``pip install .`` with no extras gives every ``sqlext`` command: every
package our code imports when it loads is a runtime dependency, the optional
ones (PySpark) are imported only where they are needed (lazily, or by the
package that exists for them: ``sqlext.spark``, the Spark data source, which
no command imports), test tools never, and the files the package reads are
in it."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tomllib
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PACKAGES: Final = ("sqlext", "wire", "executor", "catalog", "storage")
IMPORT_NAMES: Final = {"psycopg": "psycopg", "sqlglot": "sqlglot", "pyarrow": "pyarrow",
                       "uvloop": "uvloop", "pyspark": "pyspark"}
"""Distribution -> the module it is imported as."""
OPTIONAL_IN: Final = {"pyspark": ("sqlext.tools.bench.spark_bench",
                                        "sqlext.tools.bench.spark_concurrency")}
"""Modules of an extra -> the only modules that may import them, lazily."""
EXTRA_PACKAGES: Final = {"pyspark": "sqlext.spark"}
"""Modules of an extra -> the package of ours made for it, whose modules
import them when they load (and which nothing else of ours imports at
load)."""


def _in_extra_package(name: str, module: str) -> bool:
    package = EXTRA_PACKAGES.get(module)
    return package is not None and (name == package or name.startswith(package + "."))


def _project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _modules_of(requirements: list[str]) -> set[str]:
    names = {re.split(r"[\[<>=;! ]", requirement, maxsplit=1)[0] for requirement in requirements}
    return {IMPORT_NAMES[name] for name in names if name in IMPORT_NAMES}


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """Third-party top-level modules imported when the module loads, and
    those imported only inside functions or under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    eager: set[str] = set()
    lazy: set[str] = set()

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = deferred or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import | ast.ImportFrom) and not getattr(
                    child, "level", 0):
                names = ([alias.name for alias in child.names] if isinstance(child, ast.Import)
                         else [child.module or ""])
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in PACKAGES:
                        (lazy if inside else eager).add(top)
            visit(child, inside)

    visit(tree, False)
    return eager, lazy


def _our_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            found[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return found


def test_what_loads_with_our_code_is_a_runtime_dependency() -> None:
    runtime = _modules_of(_project()["dependencies"])  # type: ignore[arg-type]
    wrong = sorted(f"{name} imports {module}" for name, path in _our_modules().items()
                   for module in _imports(path)[0] - runtime
                   if not _in_extra_package(name.removesuffix(".__init__"), module))
    assert wrong == []


def test_optional_packages_are_imported_lazily_and_only_where_needed() -> None:
    extras = _project()["optional-dependencies"]
    optional = _modules_of(extras["spark"])  # type: ignore[index]
    assert optional == set(OPTIONAL_IN)
    for name, path in _our_modules().items():
        eager, lazy = _imports(path)
        for module in optional & (eager | lazy):
            if _in_extra_package(name.removesuffix(".__init__"), module):
                continue
            assert module not in eager, f"{name} imports {module} when it loads"
            assert name.removesuffix(".__init__") in OPTIONAL_IN[module], (
                f"{name} imports {module}")


def test_test_tools_are_never_imported_by_our_code() -> None:
    for name, path in _our_modules().items():
        eager, lazy = _imports(path)
        assert not (eager | lazy) & {"pytest", "hypothesis", "ruff"}, name


def test_the_entry_point_and_the_package_data_exist() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    module, _, function = project["project"]["scripts"]["sqlext"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))
    for package, patterns in project["tool"]["setuptools"]["package-data"].items():
        directory = ROOT / package.replace(".", "/")
        for pattern in patterns:
            assert list(directory.glob(pattern)), f"{package}: nothing matches {pattern}"
