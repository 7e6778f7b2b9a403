"""The project's source files that a module imports, directly or not, itself included.

    python3 experiments/deps.py experiments.train_weights   ->  experiments/__init__.py ... repro/core/train.py
    python3 experiments/deps.py --table    ->  one word per module: MODULE=FILE,FILE,...
    python3 experiments/deps.py --table --cache FILE   ->  the same, kept in FILE between runs

Used by the Makefile, so that every product depends on exactly the code that makes it: it reads
``--table`` once a run (one interpreter for every rule, not one per rule), from its cache while no
source file changed (the test suite runs make dozens of times; parsing every file takes half a
second). The imports are read statically (``ast``; imports inside functions count too), so it runs with any
Python 3 and imports nothing. ``python -m repro <command>`` modules come from repro.cli.COMMANDS.
"""

from __future__ import annotations

import ast
import functools
import hashlib
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


#: the fields of a statement that hold statements (an import is a statement: no expression holds one)
BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(body: list) -> list:
    """Every statement of ``body`` and of the blocks nested in it (functions, classes, branches,
    ``try`` and ``match`` included), without walking into expressions, most of a tree's nodes."""
    out, todo = [], list(body)
    while todo:
        node = todo.pop()
        out.append(node)
        for field in BLOCKS:
            todo.extend(getattr(node, field, None) or ())
    return out


@functools.lru_cache(maxsize=None)
def _imported(path: str, name: str) -> frozenset[str]:
    """Project modules named by the import statements of one file."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in _statements(tree.body):
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
    return frozenset(m for m in out if module_file(m))


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


def modules() -> list[str]:
    """Every module of the project's packages, sorted (``a/b.py`` -> ``a.b``, ``a/__init__.py`` -> ``a``)."""
    out = []
    for package in PACKAGES:
        for folder, dirs, names in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            base = os.path.relpath(folder, ROOT).split(os.sep)
            out.extend(".".join(base if n == "__init__.py" else base + [n[:-3]]) for n in names if n.endswith(".py"))
    return sorted(out)


def table() -> str:
    """``MODULE=FILE,FILE,...`` for every module of :func:`modules`, one word each: the Makefile's
    ``deps`` picks its module's word, so one interpreter serves every rule."""
    return " ".join(f"{m}={','.join(files(m))}" for m in modules())


def fingerprint() -> str:
    """A digest of what :func:`table` reads: the path, modification time and size of every module's
    file and of this one (the same test as make's and Python's bytecode cache: a file's time)."""
    h = hashlib.sha256()
    for path in [os.path.abspath(__file__)] + [module_file(m) for m in modules()]:
        st = os.stat(path)
        h.update(f"{os.path.relpath(path, ROOT)} {st.st_mtime_ns} {st.st_size}\n".encode())
    return h.hexdigest()


def cached_table(cache: str) -> str:
    """:func:`table`, read from ``cache`` where it was written under the same :func:`fingerprint`,
    else computed and written there (a temporary name, then renamed: two makes at once never read a
    half-written file). Where ``cache``'s folder is missing or not writable, only computed."""
    key = fingerprint()
    try:
        with open(cache, encoding="utf-8") as f:
            head, _, body = f.read().partition("\n")
        if head == key:
            return body
    except OSError:
        pass
    text = table()
    tmp = f"{cache}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"{key}\n{text}")
        os.replace(tmp, cache)
    except OSError:
        if os.path.exists(tmp):
            os.remove(tmp)
    return text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python3 experiments/deps.py MODULE... | --table [--cache FILE]", file=sys.stderr)
        return 2
    if argv == ["--table"]:
        print(table())
        return 0
    if len(argv) == 3 and argv[:2] == ["--table", "--cache"]:
        print(cached_table(argv[2]))
        return 0
    missing = [m for m in argv if not module_file(m)]
    if missing:
        print(f"error: {', '.join(missing)}: not a module of this project", file=sys.stderr)
        return 1
    print(" ".join(sorted({f for m in argv for f in files(m)})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
