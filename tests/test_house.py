"""The house rules of the layout (issue 19), checked on the source itself.

* No import circle among vramdesk's modules, type-checking imports included (grimp, the
  graph import-linter builds).
* A module past 400 lines says why at the top of its docstring ("Longer than 400 lines:").
* An import inside a function says why on the line above or its own line (it is there to
  keep a module off the start-up path, or for an optional dependency). A subcommand's
  ``run`` imports its core modules inside by design (cli/__init__.py says why once).
* Tests mirror the package: no test file is named after the round that wrote it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vramdesk"
MAX_LINES = 400


def _strongly_connected(adj: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: deep graphs are fine)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in adj:
        if root in index:
            continue
        work = [(root, iter(sorted(adj[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(adj[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def test_no_import_circle():
    graph = grimp.build_graph("vramdesk", include_external_packages=False)
    adj = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _strongly_connected(adj) == []


def test_the_circle_finder_finds_a_circle():
    # the check above is only as good as this: a planted a -> b -> c -> a is found
    adj = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _strongly_connected(adj) == [["a", "b", "c"]]


def test_long_modules_say_why():
    silent = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if "Longer than 400 lines:" not in doc:
            silent.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert silent == []


def _indented_imports(path: Path) -> list[tuple[int, set[int]]]:
    """``(line, lines of import statements)`` of every import inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    subcommand = path.parent.name == "cli"
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if subcommand and node.name == "run":
                continue
            imports = [s for s in ast.walk(node) if isinstance(s, ast.Import | ast.ImportFrom)]
            spans = {n for s in imports for n in range(s.lineno, s.end_lineno + 1)}
            out += [(s.lineno, spans) for s in imports]
    return sorted(set((line, frozenset(spans)) for line, spans in out))


def _says_why(source: list[str], line: int, spans: frozenset[int]) -> bool:
    """A comment on the import's line, or above it past blank lines and other imports."""
    if "#" in source[line - 1]:
        return True
    above = line - 1
    while above >= 1 and (above in spans or not source[above - 1].strip()):
        above -= 1
    return above >= 1 and source[above - 1].strip().startswith("#")


def test_imports_inside_functions_say_why():
    silent = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8").splitlines()
        for line, spans in _indented_imports(path):
            if not _says_why(source, line, spans):
                silent.append(f"{path.relative_to(ROOT)}:{line}")
    assert silent == []


def test_no_test_file_is_named_after_a_round():
    rounds = ("mutation_kills", "planted_bugs", "survivors", "round", "issue_")
    named = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if any(r in p.stem for r in rounds)
    ]
    assert named == []
