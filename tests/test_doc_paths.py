"""Every project path that README.md and docs/*.md name exists: files (``repro/...py``,
``experiments/...py``, ``benchmarks/...py``) and dotted names (``repro.x.y``, down to a module's
top-level name), so a moved or renamed module cannot leave a stale statement behind. Generated
blocks (``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``, :mod:`repro.io.readmeblock`) are left out:
they record what a script wrote at the commit they name."""

from __future__ import annotations

import ast
import functools
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", *sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))]
FILE = re.compile(r"\b(?:repro|experiments|benchmarks)/[\w/]*\w\.py\b")
DOTTED = re.compile(r"\brepro(?:\.\w+)+")
GENERATED = re.compile(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->", re.S)


@functools.lru_cache(maxsize=None)
def top_level_names(path: str) -> frozenset:
    """The names a module defines at its top level (functions, classes, assignments, imports), and
    those its ``__all__`` lists (the face's names, loaded on first use)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
                if isinstance(t, ast.Name) and t.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                    names.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def missing(dotted: str, root: str = ROOT) -> str | None:
    """Why ``dotted`` (a module, or a module and a top-level name) does not exist; None if it does."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        base = os.path.join(root, *parts[:i])
        module = base + ".py" if os.path.isfile(base + ".py") else os.path.join(base, "__init__.py")
        if os.path.isfile(module):
            if i < len(parts) and parts[i] not in top_level_names(module) and not os.path.isdir(base):
                return f"{'.'.join(parts[:i])} has no {parts[i]}"
            if i < len(parts) and os.path.isdir(base) and parts[i] not in top_level_names(module):
                return f"no module or name {'.'.join(parts[:i + 1])}"
            return None
    return "no such module"


def test_the_check_finds_stale_names(tmp_path):
    for package in ("data", "io"):
        (tmp_path / "repro" / package).mkdir(parents=True)
        (tmp_path / "repro" / package / "__init__.py").write_text("")
    (tmp_path / "repro" / "__init__.py").write_text('__all__ = ["Encoder"]\n\ndef __getattr__(name):\n    pass\n')
    (tmp_path / "repro" / "io" / "store.py").write_text("import os\nX = 1\n\ndef load(p):\n    pass\n")
    assert missing("repro.Encoder", str(tmp_path)) is None and missing("repro.Decoder", str(tmp_path))
    assert missing("repro.io.store", str(tmp_path)) is None and missing("repro.io.store.load", str(tmp_path)) is None
    assert missing("repro.io.store.X", str(tmp_path)) is None and missing("repro.data", str(tmp_path)) is None
    assert missing("repro.io.store.save", str(tmp_path)) == "repro.io.store has no save"
    assert missing("repro.wikidump", str(tmp_path)) == "no module or name repro.wikidump"
    assert missing("repro.data.wikidump", str(tmp_path)) == "no module or name repro.data.wikidump"
    text = "a <!-- b:start --> repro.old <!-- b:end --> c <!-- d:start -->x<!-- d:end -->"
    assert GENERATED.sub("", text) == "a  c "


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_a_document_names_exists(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = GENERATED.sub("", f.read())
    stale = sorted({p for p in FILE.findall(text) if not os.path.isfile(os.path.join(ROOT, p))})
    stale += sorted({f"{d} ({why})" for d in DOTTED.findall(text) if (why := missing(d))})
    assert not stale, f"{doc}: names what does not exist: {', '.join(stale)}"
