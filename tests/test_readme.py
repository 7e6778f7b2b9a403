"""Every code block of the README runs as written, on tiny files this test writes (issue 26).

The shell blocks' ``repro`` lines run through :func:`repro.cli.main` (``make`` and ``pip`` lines
are the only others, and are not run here); then the Python blocks run in order in one
namespace, each using only names that it or a block above it defines."""

from __future__ import annotations

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
    assert quickstart.count("\n") == 6  # the import, a blank line and five lines
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
    namespace: dict = {}
    for block in readme_blocks("python"):
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["X"].shape == (2, 300) and namespace["X"].dtype == np.float32
    # the shipped default scores by the cosine; metric="euclidean" and the paper's model by minus a distance
    assert namespace["s"].shape == (1,) and -1 <= namespace["s"][0] <= 1 and namespace["e"][0] < 0
    assert namespace["paper"].metric == "euclidean" and namespace["paper"].provenance_["model"] == "paper"
    assert namespace["mine"].weights_.shape == (10,) and namespace["mine"].components_ is not None
    assert (workdir / "enc.npz").exists() and (workdir / "mine.npz").exists()
    assert namespace["ids"].shape == namespace["scores"].shape == (1, 2) and (workdir / "nn.npz").exists()
