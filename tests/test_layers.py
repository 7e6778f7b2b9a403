"""The import layers of setup.cfg: kept, complete, and broken by an upward import."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys

import pytest

from repro.cli import COMMANDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINT = os.path.join(os.path.dirname(sys.executable), "lint-imports")


def _layers() -> list[list[str]]:
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    lines = [x.strip() for x in cfg["importlinter:contract:layers"]["layers"].splitlines() if x.strip()]
    return [[m.strip() for m in line.replace(":", "|").split("|")] for line in lines]


def _layer_of(module: str, layers) -> int:
    """Index of the layer holding ``module`` (itself or a package above it), -1 when none does."""
    for i, layer in enumerate(layers):
        if any(module == m or module.startswith(m + ".") for m in layer):
            return i
    return -1


def _lint(root: str, cache: str):
    if not os.path.exists(LINT):
        pytest.skip("import-linter is not installed (the test extra)")
    env = {**os.environ, "PYTHONPATH": root}
    return subprocess.run([LINT, "--config", os.path.join(root, "setup.cfg"), "--cache-dir", cache], cwd=root,
                          capture_output=True, text=True, env=env)


def test_the_contracts_are_kept(tmp_path):
    out = _lint(ROOT, str(tmp_path / "cache"))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "2 kept, 0 broken" in out.stdout


def test_every_module_is_in_a_layer():
    """A module outside every layer would escape the contract: none is."""
    layers = _layers()
    modules = []
    for package in ("repro", "experiments"):
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            rel = os.path.relpath(folder, ROOT).replace(os.sep, ".")
            modules += [rel if f == "__init__.py" else f"{rel}.{f[:-3]}" for f in files if f.endswith(".py")]
    loose = [m for m in modules if m not in ("repro", "experiments") and _layer_of(m, layers) < 0]
    assert len(modules) > 40 and loose == []


def test_the_commands_that_cli_loads_by_name_lie_below_it():
    """repro.cli imports its commands with importlib, which the linter cannot see; each one lies in
    a layer below repro.cli, so the contract forbids it to import repro.cli back (no hidden loop)."""
    layers = _layers()
    cli = _layer_of("repro.cli", layers)
    assert all(_layer_of(module, layers) > cli for module, _ in COMMANDS.values())


@pytest.mark.parametrize("module, line, broken", [
    ("repro/core/model.py", "import repro.data.wikipedia.wikitext", "repro.core.model -> repro.data.wikipedia.wikitext"),
    ("repro/data/wikipedia/wikitext.py", "import experiments.files", "repro.data.wikipedia.wikitext -> experiments.files"),
    ("repro/io/store.py", "from repro import cli", "repro.io.store -> repro.cli"),
    ("repro/core/model.py", "from repro.io import store", "repro.core.model -> repro.io.store"),
    ("repro/words/text.py", "import repro.spaces.vectors", "repro.words.text -> repro.spaces.vectors"),
    ("repro/evaluate/family.py", "import repro.encode.encoder", "repro.evaluate.family -> repro.encode.encoder"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, module, line, broken):
    for part in ("repro", "experiments"):
        shutil.copytree(os.path.join(ROOT, part), tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "weights"))
    shutil.copy(os.path.join(ROOT, "setup.cfg"), tmp_path / "setup.cfg")
    with open(tmp_path / module, "a", encoding="utf-8") as f:
        f.write(f"\n{line}  # an upward import\n")
    out = _lint(str(tmp_path), str(tmp_path / "cache"))
    assert out.returncode != 0 and "BROKEN" in out.stdout and broken in out.stdout, out.stdout[-3000:]


def _doc_layers(path: str) -> list[list[str]]:
    """The import-layer table of docs/LAYOUT.md: its second column, one layer a row, as setup.cfg writes it."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("| layer | modules (as `setup.cfg` lists them)"):].split("\n\n", 1)[0].splitlines()[2:]
    rows = [re.split(r"(?<!\\)\|", row)[2].strip() for row in table]
    return [[m.strip() for m in cell.strip("`").split("\\|")] for cell in rows]


def test_the_layout_doc_lists_the_layers_of_setup_cfg():
    """docs/LAYOUT.md's layer table holds setup.cfg's layers exactly, in order (a layer added,
    moved or renamed in one and not the other fails here)."""
    assert _doc_layers(os.path.join(ROOT, "docs", "LAYOUT.md")) == _layers()


def import_cycles(packages, path: str) -> list[list[str]]:
    """The import cycles among the modules of ``packages`` under ``path`` (every import statement,
    those inside functions too, as grimp reads them): each strongly connected component of more
    than one module of the directed import graph, found by Tarjan's algorithm."""
    import grimp

    sys.path.insert(0, path)
    try:
        graph = grimp.build_graph(*packages, cache_dir=None)
    finally:
        sys.path.remove(path)
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return found


def test_no_module_imports_itself_through_others():
    """0 import cycles in repro, experiments and benchmarks (the layers contract cannot see a cycle
    inside one package of a layer, such as repro.data)."""
    assert import_cycles(("repro", "experiments", "benchmarks"), ROOT) == []


def test_the_cycle_check_finds_a_cycle(tmp_path):
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from cyclepkg import b  # inside a function, still an import\n")
    (pkg / "b.py").write_text("from cyclepkg import c\n")
    (pkg / "c.py").write_text("import cyclepkg.a\n")
    (pkg / "d.py").write_text("import cyclepkg.a\n")
    assert import_cycles(("cyclepkg",), str(tmp_path)) == [["cyclepkg.a", "cyclepkg.b", "cyclepkg.c"]]


def test_the_layout_doc_has_one_line_for_every_module():
    """docs/LAYOUT.md lists every module of repro/ once, a line each ("- `repro/...py`: what it holds"),
    and no module that is gone."""
    import glob

    with open(os.path.join(ROOT, "docs", "LAYOUT.md"), encoding="utf-8") as f:
        listed = re.findall(r"^- `(repro/[\w/]+\.py)`: \S", f.read(), flags=re.M)
    modules = {os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "repro", "**", "*.py"), recursive=True)}
    documented = {m for m in modules if not m.endswith("__init__.py") or open(os.path.join(ROOT, m)).read().strip()}
    assert len(listed) == len(set(listed)), sorted(m for m in listed if listed.count(m) > 1)
    assert set(listed) - modules == set(), sorted(set(listed) - modules)
    assert {m for m in documented if not m.endswith("__init__.py")} <= set(listed), \
        sorted({m for m in documented if not m.endswith("__init__.py")} - set(listed))
