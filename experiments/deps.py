"""The project's source files that a module imports, directly or not, itself included.

    python3 experiments/deps.py experiments.train_weights   ->  experiments/files.py ... repro/train.py

Used by the Makefile, so that every product depends on exactly the code that makes it. The
imports are read statically (``ast``; imports inside functions count too), so it runs with any
Python 3 and imports nothing. ``python -m repro <command>`` modules come from repro.cli.COMMANDS.
"""

from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("repro", "experiments")


def module_file(name: str) -> str | None:
    """The source file of a project module (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``)."""
    if name.split(".")[0] not in PACKAGES:
        return None
    base = os.path.join(ROOT, *name.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def _imported(path: str, name: str) -> set[str]:
    """Project modules named by the import statements of one file."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # "from pkg import module"
    return {m for m in out if module_file(m)}


def closure(name: str) -> set[str]:
    """Every project module ``name`` imports, directly or not, with the packages that hold them."""
    seen, todo = set(), [name]
    while todo:
        mod = todo.pop()
        if mod in seen or not module_file(mod):
            continue
        seen.add(mod)
        parts = mod.split(".")
        todo.extend(".".join(parts[:k]) for k in range(1, len(parts)))  # parent packages run first
        todo.extend(_imported(module_file(mod), mod))
    return seen


def files(name: str) -> list[str]:
    """Sorted paths, relative to the project root, of :func:`closure`."""
    return sorted(os.path.relpath(module_file(m), ROOT) for m in closure(name))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python3 experiments/deps.py MODULE...", file=sys.stderr)
        return 2
    missing = [m for m in argv if not module_file(m)]
    if missing:
        print(f"error: {', '.join(missing)}: not a module of this project", file=sys.stderr)
        return 1
    print(" ".join(sorted({f for m in argv for f in files(m)})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
