"""The package layout (docs/index.md, "Architecture"): no import loops, every module importable
alone, ``__all__`` everywhere, and the one-way direction protocol_runner -> robustgraph -> solvers.

The import graph is read statically (every ``import`` statement, at module level or inside a
function, except ``if TYPE_CHECKING:`` blocks), with ``from PKG import NAME`` resolved to the
module that defines NAME (a submodule, or the target of a lazy package export), so a loop hidden
behind a deferred import or a lazy ``__init__`` is still a loop.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solvers", "robustgraph", "protocol_runner")
LAYER = {"solvers": 0, "robustgraph": 1, "protocol_runner": 2}
LONG = 500  # lines; a longer module says at its top why it is one module ("One module: ...")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _lazy_target(package: str, name: str) -> str | None:
    getter = getattr(importlib.import_module(package), "__getattr__", None)
    return getattr(getter, "names", {}).get(name)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in MODULES}
    base = node.module or ""
    if node.level:  # relative import
        anchor = module.split(".")
        if not MODULES[module].name == "__init__.py":
            anchor = anchor[:-1]
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join(anchor + ([node.module] if node.module else []))
    if base not in MODULES:
        return set()
    out = set()
    for alias in node.names:
        full = f"{base}.{alias.name}"
        if full in MODULES:
            out.add(full)
        else:
            out.add(_lazy_target(base, alias.name) or base)
    return out


def _graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[module] = set().union(*(_targets(module, n) for n in _import_nodes(tree))) - {module}
    return graph


GRAPH = _graph()


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as a list of modules, or None (iterative depth-first search)."""
    colour = dict.fromkeys(graph, 0)
    for start in graph:
        if colour[start]:
            continue
        path, iters = [start], [iter(sorted(graph[start]))]
        colour[start] = 1
        while path:
            nxt = next(iters[-1], None)
            if nxt is None:
                colour[path.pop()] = 2
                iters.pop()
            elif colour.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif colour.get(nxt) == 0:
                colour[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph[nxt])))
    return None


def test_cycle_finder_finds_a_loop_and_accepts_a_dag():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_loops():
    assert _cycle(GRAPH) is None, f"import loop: {' -> '.join(_cycle(GRAPH))}"


def test_dependencies_point_one_way():
    upward = [
        f"{m} imports {t}"
        for m, targets in GRAPH.items()
        for t in targets
        if LAYER[t.split(".")[0]] > LAYER[m.split(".")[0]]
    ]
    assert not upward, upward


def _problems_in_a_fresh_interpreter(script: str) -> list[str]:
    """Run ``script`` (which prints a JSON list of problems last) in a new interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_module_imports_alone():
    """Each module imported with none of ours loaded before it (one interpreter, our modules
    purged from ``sys.modules`` before each import; third-party modules stay loaded)."""
    script = f"""
import importlib, json, sys
names = {sorted(MODULES)!r}
failed = []
for name in names:
    for loaded in [m for m in sys.modules if m.split(".")[0] in {PACKAGES!r}]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{{name}}: {{exc!r}}")
print(json.dumps(failed))
"""
    assert _problems_in_a_fresh_interpreter(script) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_lists_public_names(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    assigned = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    assert "__all__" in assigned, f"{module} has no __all__"
    assert ast.get_docstring(tree), f"{module} has no docstring"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_long_modules_say_why(module):
    text = MODULES[module].read_text(encoding="utf-8")
    if text.count("\n") > LONG:
        assert "One module:" in (ast.get_docstring(ast.parse(text)) or ""), (
            f"{module} has over {LONG} lines and no 'One module: <reason>' in its docstring"
        )


PACKAGE_INITS = sorted(m for m, p in MODULES.items() if p.name == "__init__.py")


@pytest.mark.parametrize("package", PACKAGE_INITS)
def test_lazy_exports_resolve(package):
    """Every name a package exports resolves (top-level packages included)."""
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"


def test_lazy_exports_survive_every_submodule_import():
    """Issue 30: ``rg.design`` became the subpackage ``robustgraph.design`` once anything
    imported it (the import system binds a submodule as an attribute of its package), and
    ``rg.design(n=10, r=3)`` raised "'module' object is not callable". The old version of this
    test skipped the top-level packages and asserted the shadowing as intended. Here, in a fresh
    interpreter, every module of ours is imported first; then every lazily exported name of
    every package must still be the object its module defines, and the documented entry points
    must be the functions."""
    script = f"""
import importlib, json
names = {sorted(MODULES)!r}
for name in names:
    importlib.import_module(name)
wrong = []
for package in {PACKAGE_INITS!r}:
    module = importlib.import_module(package)
    for name, target in getattr(getattr(module, "__getattr__", None), "names", {{}}).items():
        defining = importlib.import_module(target)
        if getattr(module, name) is not getattr(defining, name, defining):
            wrong.append(f"{{package}}.{{name}} is {{getattr(module, name)!r}}")
import robustgraph as rg
for name in ("design", "augment", "certify", "max_r", "is_r_robust", "read"):
    if name not in rg.__all__ or not callable(getattr(rg, name, None)):
        wrong.append(f"robustgraph.{{name}} is not the documented function")
print(json.dumps(wrong))
"""
    assert _problems_in_a_fresh_interpreter(script) == []


def test_no_dotted_import_passes_through_a_kept_export():
    """``import pkg.name.sub as x`` looks ``name`` up as an attribute of ``pkg``; where ``name``
    is a lazily exported object that is not the submodule (``robustgraph.design``, the
    function), that finds the function. Our code imports such submodules with ``from``."""
    bad = []
    for module, path in MODULES.items():
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import):
                continue
            for alias in node.names:
                parts = alias.name.split(".")
                for i in range(1, len(parts) - 1):
                    package, name = ".".join(parts[:i]), parts[i]
                    target = _lazy_target(package, name) if package in MODULES else None
                    if target is None:
                        continue
                    defining = importlib.import_module(target)
                    if getattr(defining, name, defining) is not defining:
                        bad.append(f"{module}: import {alias.name}")
    assert not bad, bad
