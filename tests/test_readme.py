"""Every code block of the README runs as written, on tiny files this test writes (issue 26).

The shell blocks' ``repro`` lines run through :func:`repro.cli.main` (``make`` and ``pip`` lines
are the only others, and are not run here); then the Python blocks run in order, each on its own:
with only the names it defines, and those the Python block right above it in the same section
defines (a reader copies a section's snippet, not the whole page; issue 35, item 7)."""

from __future__ import annotations

import ast
import os
import re
import shlex

import numpy as np
import pytest

from repro import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ("the cat sat on mat a kitten rug stock markets fell sharply today dogs chase cats dog chased is red "
         "token list").split()


def readme_blocks(language: str) -> list[str]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def python_blocks(text: str) -> list[tuple[str, str]]:
    """(the ``##`` section it is in, its code) of every Python block of a Markdown text, in order."""
    out, section = [], ""
    for m in re.finditer(r"^(## [^\n]*)$|^```python\n(.*?)^```$", text, flags=re.S | re.M):
        if m.group(1):
            section = m.group(1)
        else:
            out.append((section, m.group(2)))
    return out


def defined_names(code: str) -> set[str]:
    """The names a block of code binds in its own namespace: assignments, imports, defs, loop
    variables; not those local to a function or a comprehension."""
    names = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(child.name)
                continue
            if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in child.names)
            visit(child)

    visit(ast.parse(code))
    return names


def run_python_blocks(text: str) -> dict:
    """Run every Python block of ``text`` with only its own names and those the block right above
    it in the same section defines; the names every block defined, the later block's where two did."""
    seen, above = {}, (None, {})
    for section, code in python_blocks(text):
        namespace = dict(above[1]) if above[0] == section else {}
        exec(compile(code, "README.md", "exec"), namespace)
        own = {k: namespace[k] for k in defined_names(code)}
        seen.update(own)
        above = (section, own)
    return seen


def test_a_block_sees_only_the_names_of_the_block_above_it_in_its_section():
    ok = "## A\n```python\nx = 1\n```\ntext\n```python\ny = x + 1\n```\n"
    assert run_python_blocks(ok) == {"x": 1, "y": 2}
    for bad in ("## A\n```python\nx = 1\n```\n## B\n```python\ny = x + 1\n```\n",  # another section
                "## A\n```python\nx = 1\n```\n```python\nz = 0\n```\n```python\ny = x\n```\n"):  # two above
        with pytest.raises(NameError, match="name 'x' is not defined"):
            run_python_blocks(bad)
    assert defined_names("import numpy as np\nfrom os import path\nfor i in []: pass\ndef f(): v = 1\n"
                         "w = [u for u in []]") == {"np", "path", "i", "f", "w"}


def shell_commands() -> list[list[str]]:
    """Every command line of the README's shell blocks, split as the shell would (comments dropped)."""
    return [shlex.split(line, comments=True) for block in readme_blocks("sh") for line in block.splitlines()
            if line.strip()]


@pytest.fixture()
def workdir(tmp_path, monkeypatch):
    """A folder holding what the README's lines read: a GloVe text file of 300-d vectors, texts
    and couples files, the current folder while the test runs."""
    rng = np.random.default_rng(0)
    (tmp_path / "glove.6B.300d.txt").write_text(
        "".join(w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(300)) + "\n" for w in WORDS))
    (tmp_path / "texts.txt").write_text("The cat sat on the mat.\nA kitten sat on a rug.\nMarkets fell today.\n")
    lines = []
    for i in range(40):
        lines += ["the cat sat\ta kitten sat on the mat\t1", "the cat sat\tstock markets fell\t0",
                  "dogs chase cats\ta dog chased the cat\t1", "dogs chase cats\tthe mat is red\t0"]
    rng.shuffle(lines)
    for name in ("train.tsv", "test.tsv", "val.tsv"):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_is_short_and_starts_with_install_quickstart_and_contents():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) < 300
    first_screen = "\n".join(lines[:45])
    assert "## Install" in first_screen and "## Quickstart" in first_screen and "[Install](#install)" in first_screen
    quickstart = readme_blocks("python")[0]
    assert quickstart.count("\n") == 7  # the import, a blank line and six lines
    assert 'enc.save("enc.npz")' in quickstart  # a saved encoder keeps the vectors stable (issue 35, item 8)
    assert {c[0] for c in shell_commands()} == {"make", "pip", "repro"}
    assert ["make", "table1"] in shell_commands() and ["make", "test"] in shell_commands()


def test_every_code_block_runs_as_written(workdir, capsys):
    for argv in shell_commands():
        if argv[0] == "repro":
            assert cli.main(argv[1:]) == 0, (argv, capsys.readouterr().err)
    out = capsys.readouterr().out
    assert np.load(workdir / "X.npy").shape == (3, 300)
    assert (workdir / "df.npz").exists() and (workdir / "mine.npz").exists()
    assert "df: " in out and '"split_error"' in out
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        namespace = run_python_blocks(f.read())
    assert namespace["X"].shape == (2, 300) and namespace["X"].dtype == np.float32
    # the shipped default scores by the cosine; metric="euclidean" and the paper's model by minus a distance
    assert namespace["s"].shape == (1,) and -1 <= namespace["s"][0] <= 1 and namespace["e"][0] < 0
    assert namespace["paper"].metric == "euclidean" and namespace["paper"].provenance_["model"] == "paper"
    assert namespace["mine"].weights_.shape == (10,) and namespace["mine"].components_ is not None
    assert (workdir / "enc.npz").exists() and (workdir / "mine.npz").exists()
    assert namespace["ids"].shape == namespace["scores"].shape == (1, 2) and (workdir / "nn.npz").exists()
