"""Thin mains: every script's ``main`` under experiments/, benchmarks/ and repro/commands/ parses
arguments, calls library code and writes files, in at most 60 lines; scripts import the packages
instead of editing ``sys.path`` (benchmarks/ is a package: ``python -m benchmarks.<name>``)."""

from __future__ import annotations

import ast
import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("experiments", "benchmarks", os.path.join("repro", "commands"))
MAX_MAIN_LINES = 60


def scripts() -> list[str]:
    return sorted(os.path.relpath(p, ROOT) for folder in FOLDERS for p in glob.glob(os.path.join(ROOT, folder, "*.py")))


def main_lengths(source: str) -> list[tuple[int, int]]:
    """(first line, lines) of every function named ``main`` in ``source``, decorators and docstring included."""
    tree = ast.parse(source)
    return [(node.lineno, node.end_lineno - min([node.lineno] + [d.lineno for d in node.decorator_list]) + 1)
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main"]


def test_the_measure_counts_every_line():
    source = "def main(argv=None):\n" + "    x = 1\n" * 60 + "\n\ndef other():\n    pass\n"
    assert main_lengths(source) == [(1, 61)]
    assert main_lengths("class A:\n    @staticmethod\n    def main():\n        return 0\n") == [(3, 3)]  # decorator counted


def test_the_folders_hold_scripts():
    found = scripts()
    assert "experiments/tables.py" in found and "benchmarks/bench_train.py" in found
    assert os.path.join("repro", "commands", "encode.py") in found


@pytest.mark.parametrize("path", scripts())
def test_main_is_at_most_60_lines(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        long = [(line, n) for line, n in main_lengths(f.read()) if n > MAX_MAIN_LINES]
    assert not long, (f"{path}: main at line {long[0][0]} is {long[0][1]} lines (at most {MAX_MAIN_LINES}): "
                      "move its logic into named functions or the library")


@pytest.mark.parametrize("path", scripts())
def test_no_script_edits_sys_path(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    edits = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in ("insert", "append")
             and isinstance(node.value, ast.Attribute) and node.value.attr == "path"
             and isinstance(node.value.value, ast.Name) and node.value.value.id == "sys"]
    assert not edits, f"{path}: sys.path edited at line {edits[0]}: import the package (python -m benchmarks.<name>)"
