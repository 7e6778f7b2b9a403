"""One definition per public name, and no private name used across modules (issue 33, item 7).

Read from the AST of every module under repro/, experiments/ and benchmarks/ (nothing is
imported). Two rules:

1. each name of :data:`ONCE` is bound at module level (a function, a class or a variable) in at
   most one module: a reader who meets ``fit`` knows which one it is;
2. no module reaches a private name (one leading underscore) of another project module, by
   ``from X import _name`` or by ``X._name``. An attribute ``obj._name`` counts as another
   module's unless this module binds ``_name`` itself (a function, a class, an assignment
   ``self._name = ...``, a ``__slots__`` entry); the namedtuple API (``_replace``, ``_asdict``,
   ...) is public despite its underscore.
"""

from __future__ import annotations

import argparse
import ast
import os
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("repro", "experiments", "benchmarks")
#: Names defined in one module only (``word_map`` joins once its registry gives it one home).
ONCE = ("couple_scores", "text_vectors", "fit", "word_counts", "train", "word_map")
#: The public API of ``collections.namedtuple`` and ``typing.NamedTuple``.
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})


def project_modules() -> dict[str, ast.Module]:
    """Dotted module name -> its parsed source, for every .py file under :data:`FOLDERS`."""
    out = {}
    for folder in FOLDERS:
        for base, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(base, f)
                    name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".").removesuffix(".__init__")
                    with open(path, encoding="utf-8") as fh:
                        out[name] = ast.parse(fh.read(), path)
    return out


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def module_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (imports aside)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def duplicates(trees: dict[str, ast.Module], names) -> dict[str, list[str]]:
    """Each of ``names`` bound at module level in two or more of ``trees`` -> those modules."""
    where = {name: [m for m, tree in sorted(trees.items()) if name in module_level_names(tree)] for name in names}
    return {name: mods for name, mods in where.items() if len(mods) > 1}


def own_private_names(tree: ast.Module) -> set[str]:
    """Private names the module binds anywhere: functions, classes, assigned names and
    attributes, and private identifiers written as strings (``__slots__``, ``setattr``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)
    return {n for n in names if is_private(n)}


def imported_names(tree: ast.Module) -> set[str]:
    """Names an import statement binds in the module (at any depth)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out |= {a.asname or a.name for a in node.names}
    return out


def _root(node: ast.AST):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def private_uses(module: str, tree: ast.Module, project=FOLDERS) -> list[str]:
    """``module:line: what`` for every private name of another project module that ``tree`` uses."""
    own, imported, out = own_private_names(tree), imported_names(tree), []
    package = module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:  # relative: resolved against this module's package
                source = ".".join(package[:len(package) - node.level] + ([source] if source else []))
            if source.split(".")[0] in project:
                out += [f"{module}:{node.lineno}: from {source} import {a.name}" for a in node.names if is_private(a.name)]
        elif isinstance(node, ast.Attribute) and is_private(node.attr) and node.attr not in NAMEDTUPLE_API:
            root = _root(node.value)
            if root in ("self", "cls"):
                continue
            if root in imported or node.attr not in own:
                out.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return out


# ---------------------------------------------------------------------------------------
# the checks, each first shown to catch what it is for
# ---------------------------------------------------------------------------------------

def _parse(source: str) -> ast.Module:
    return ast.parse(textwrap.dedent(source))


def test_a_name_bound_in_two_modules_is_found():
    trees = {"repro.a": _parse("def fit(x):\n    return x\n"),
             "repro.b": _parse("class C:\n    def fit(self):\n        pass\n\n\ndef helper():\n    def fit():\n"
                               "        pass\n"),  # a method and a nested function are not module names
             "repro.c": _parse("fit = None\ntrain, (other, word_counts) = 1, (2, 3)\n"),
             "repro.d": _parse("from repro.a import fit\ndef word_counts():\n    pass\n")}  # an import is no definition
    assert duplicates(trees, ("fit", "train", "word_counts", "couple_scores")) == {
        "fit": ["repro.a", "repro.c"], "word_counts": ["repro.c", "repro.d"]}


def test_each_listed_name_is_defined_in_one_module():
    trees = project_modules()
    assert len(trees) > 100 and "repro.core.fit" in trees and "experiments.score" in trees
    assert duplicates(trees, ONCE) == {}
    # and each still exists once, so that the list names real things
    assert all(sum(name in module_level_names(t) for t in trees.values()) == 1 for name in ONCE)


def test_a_private_name_of_another_module_is_found():
    source = """
        import repro.core.model
        from repro.core import baselines
        from repro.evaluate.scoring import _distances, padded_chunks
        from numpy._core import __cpu_features__
        from ._sibling import ok
        from . import _hidden

        class Lookup:
            __slots__ = ("_slots",)

            def __init__(self):
                self._own = 1

            def same(self, other):
                return other._own, other._slots, self._anything

        def use(lookup, enc, t):
            t = t._replace(a=1)._asdict()
            return (repro.core.model._represent, baselines._row_dot, lookup._other, enc._own,
                    baselines.__name__, _helper())

        def _helper():
            return 0
        """
    found = private_uses("repro.data.mine", _parse(source))
    assert [f.split(": ", 1)[1] for f in found] == [
        "from repro.evaluate.scoring import _distances", "from repro.data import _hidden",
        "repro.core.model._represent", "baselines._row_dot", "lookup._other"]
    assert found[0].startswith("repro.data.mine:4: ")


def test_a_module_attribute_is_another_module_s_even_under_a_name_bound_here():
    source = """
        from repro.core import train

        def _check_config():
            pass

        def run():
            return train._check_config, _check_config
        """
    assert [f.split(": ", 1)[1] for f in private_uses("repro.core.crossval", _parse(source))] == ["train._check_config"]


def test_no_private_name_is_used_across_modules():
    trees = project_modules()
    assert [use for module, tree in sorted(trees.items()) for use in private_uses(module, tree)] == []


DISTANCE_NAMES = frozenset({"euclidean", "sqeuclidean", "cosine"})


def metric_lists(trees: dict[str, ast.Module]) -> list[str]:
    """``module:line`` of every tuple, list or set literal of two or more distance names."""
    return [f"{module}:{node.lineno}" for module, tree in sorted(trees.items()) for node in ast.walk(tree)
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) > 1
            and all(isinstance(e, ast.Constant) and e.value in DISTANCE_NAMES for e in node.elts)]


def test_a_list_of_metrics_is_found():
    tree = _parse('A = ("euclidean", "cosine")\nB = ["cosine"]\nC = {"cosine", "sqeuclidean", "euclidean"}\n'
                  'D = ("euclidean", "manhattan")\n')
    assert metric_lists({"repro.x": tree}) == ["repro.x:1", "repro.x:3"]


def test_the_metrics_are_listed_in_one_place():
    """The metrics are :data:`repro.settings.TABLE_METRICS`; the losses' training distances add the
    original code's squared Euclidean distance to them (kappa = 160 was tuned on it)."""
    from repro import settings
    from repro.core import losses, textmetric
    from repro.evaluate import family
    from repro.commands import options

    assert metric_lists(project_modules()) == [f"repro.core.losses:{_line('repro/core/losses.py', 'DISTANCES = (')}",
                                               f"repro.settings:{_line('repro/settings.py', 'TABLE_METRICS = (')}"]
    assert textmetric.METRICS is family.DISTANCES is settings.TABLE_METRICS
    assert set(settings.TABLE_METRICS) < set(losses.DISTANCES)
    ap = argparse.ArgumentParser()
    options.add_word_map_options(ap)
    assert [a.choices for a in ap._actions if "--distance" in a.option_strings] == [settings.TABLE_METRICS]


def _line(path: str, start: str) -> int:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if line.startswith(start))
