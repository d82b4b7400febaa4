"""The import layers (docs/architecture.md), read from the code: imports inside functions count.

core (data, seeding, statistics, run store, the protocol, and the kernels' base in ``simulators/common``)
<- games (``simulators/<game>``) <- strategies <- analyses (the ``balance`` modules that run games: drift,
restricted play, sweeps, ...) <- reports <- the CLI and the library face (``balance.cli``, ``balance.api``,
``balance/__init__``). A module imports only its own layer or lower ones (the one exception is listed, with the
measurement that earns it), and no modules import each other in a cycle.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("balance", "simulators", "strategies", "reports")
CORE = {"errors", "data", "rng", "stats", "findings", "metagame", "protocol", "registry", "runs", "rundata",
        "columns", "outputs"}
TOP = {"balance", "balance.cli", "balance.cli_ci", "balance.api"}
NAMES = ("core", "games", "strategies", "analyses", "reports", "CLI/API")
# (module, package it may import from a higher layer): why
EXCEPTIONS = {
    ("simulators.rose_duel.builtin_inline_nb", "strategies.rose_duel"):
        "the rose duel decides its built-in strategies inline (random games x1.4-1.6, heuristic x1.7-2.3 as fast); "
        "parity with the strategies called through their address: tests/simulators/test_rose_duel_builtin_inline.py",
}


def layer(mod: str) -> int:
    if mod in TOP:
        return 5
    top, _, rest = mod.partition(".")
    if top == "reports":
        return 4
    if top == "strategies":
        return 2
    if top == "simulators":
        return 0 if rest.startswith("common") or not rest else 1
    return 0 if rest.split(".")[0] in CORE else 3


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def imports(path: Path, mods: dict, top_level_only: bool = False) -> list[tuple[str, int]]:
    """(module imported, line) for every import of ``path`` (only the module-level ones if asked)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                     for a in node.names]
        else:
            continue
        for n in names:
            while n and n not in mods:
                n = n.rpartition(".")[0]
            if n:
                out.append((n, node.lineno))
    return out


def test_no_module_imports_a_higher_layer():
    mods = modules()
    up = [f"{m} ({NAMES[layer(m)]}) imports {n} ({NAMES[layer(n)]}) at line {line}"
          for m, path in mods.items() for n, line in imports(path, mods)
          if layer(n) > layer(m) and not any(m == a and (n == b or n.startswith(b + ".")) for a, b in EXCEPTIONS)]
    assert up == [], "\n".join(up)
    for a, b in EXCEPTIONS:  # an exception whose import is gone goes from the list
        assert any(n == b or n.startswith(b + ".") for n, _ in imports(mods[a], mods)), (a, b)


def test_no_import_cycle():
    """No two modules import each other, directly or through others (imports inside functions count: a cycle
    that only a lazy import hides is still two modules that cannot be read apart)."""
    mods = modules()
    graph = {m: {n for n, _ in imports(p, mods) if n != m and not m.startswith(n + ".")}
             for m, p in mods.items()}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_layer_rule_itself():
    """The classification the two tests rely on (a module moved between layers shows here)."""
    assert [layer(m) for m in ("balance.runs", "simulators.common.numba_compat", "simulators.colosseum.game",
                               "strategies.colosseum.builtin", "balance.drift", "reports.report",
                               "balance.cli")] == [0, 0, 1, 2, 3, 4, 5]
