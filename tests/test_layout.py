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
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


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


@pytest.mark.parametrize(
    "package",
    sorted(m for m, p in MODULES.items() if p.name == "__init__.py" and "." in m),
)
def test_lazy_exports_resolve(package):
    """Every name a package exports resolves; no name exported lazily is also the name of a
    submodule (importing the submodule would replace the exported object by the module, as
    ``design.augment`` did)."""
    module = importlib.import_module(package)
    lazy = getattr(getattr(module, "__getattr__", None), "names", {})
    submodules = {m.rpartition(".")[2] for m in MODULES if m.rpartition(".")[0] == package}
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None, f"{package}.{name}"
        if name in submodules and name in lazy:
            assert value is importlib.import_module(f"{package}.{name}"), (
                f"{package} exports {name!r}, which is also the name of its submodule"
            )
