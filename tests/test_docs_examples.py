"""Every example of README.md and docs/*.md runs as written (issue 60), in a fresh empty folder,
on what a fresh install has: the zero-file default, or files an earlier block of the same page
makes. Sybil reads the pages (its Markdown parsers: no Markdown parser of our own).

* A ``python`` block runs in a namespace of its own (a reader pastes one block, not the page);
  one written as a doctest (``>>>``) must also print what it shows.
* A ``sh`` block runs in bash (``-e``: every line must succeed), with the ``repro`` of this
  install first on the PATH.
* A block that cannot run here (an install, a GPU, a full dump, a user's own file) carries Sybil's
  ``<!-- skip: next -->`` and says why in its own first line, "not run by the tests: ..." (checked).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest
from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                               if f.endswith(".md"))
#: What a skipped block's first line says: visible to a reader, not only to Sybil.
NOT_RUN = "not run by the tests:"


def run_shell(example) -> None:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", example.parsed], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode:
        raise AssertionError(f"{example.path}, line {example.line}: exit {proc.returncode}\n{proc.stderr[-2000:]}")


def fresh_namespace(example) -> None:
    """Each Python block starts from nothing (Sybil keeps one namespace per page otherwise)."""
    example.namespace.clear()


class FreshPython(PythonCodeBlockParser):
    """Python blocks, each starting from an empty namespace: the first region of a fenced block
    (a doctest block is several regions, one per ``>>>`` example, which share it) clears it."""

    def __call__(self, document):
        last_end = 0
        for region in super().__call__(document):
            if "```" in document.text[last_end:region.start]:  # a fence between: another block
                evaluate = region.evaluator

                def isolated(example, evaluate=evaluate):
                    fresh_namespace(example)
                    return evaluate(example)

                region.evaluator = isolated
            last_end = region.end
            yield region


SYBIL = Sybil(parsers=[FreshPython(), CodeBlockParser("sh", run_shell), SkipParser()])


@pytest.mark.parametrize("page", PAGES)
def test_every_example_of_the_page_runs_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # empty: the blocks make every file they read
    document = SYBIL.parse(pathlib.Path(ROOT, page))
    for example in document:
        example.evaluate()


@pytest.mark.parametrize("page", PAGES)
def test_a_block_the_tests_skip_says_so_in_its_first_line(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"<!-- skip: next -->\n```\w*\n([^\n]*)\n", text):
        assert NOT_RUN in m.group(1), f"{page}: a skipped block's first line must say why ({NOT_RUN} ...)"
    # every fenced block is code that runs (python, sh) or skipped visibly, or an output listing (text)
    opened = [line[3:].strip() for i, line in enumerate(fences(text)) if i % 2 == 0]
    assert set(opened) <= {"python", "sh", "text"}, f"{page}: blocks in {sorted(set(opened))}"


def fences(text: str) -> list[str]:
    """The fence lines of a Markdown text, in order (an opening one, then its closing one)."""
    return [line for line in text.splitlines() if line.startswith("```")]


def test_the_readme_is_short_and_starts_with_install_quickstart_and_contents():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) < 300
    first_screen = "\n".join(lines[:45])
    assert "## Install" in first_screen and "## Quickstart" in first_screen and "[Install](#install)" in first_screen
    assert "Encoder.pretrained()" in first_screen  # the first example needs no file
