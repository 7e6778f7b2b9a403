"""Shared edges of the experiment scripts: loading a data folder's corpus and couples, and the
README blocks that make targets fill."""

from __future__ import annotations

import os

import numpy as np

from repro import store
from repro.layout import Layout
from repro.vocabulary import Vocabulary


def load_corpus(data: str) -> tuple[Vocabulary, np.ndarray]:
    """The corpus's vocabulary (words, df, N) and its word2vec table (V, d) float32."""
    layout = Layout(data)
    words, table = store.load_vectors(layout.w2v)
    df, n_docs = store.load_df(layout.df, vocab_size=len(words))
    return Vocabulary(words, df, n_docs), np.asarray(table, np.float32)


def load_split(data: str, setting: str, split: str):
    return store.load_pairs(Layout(data).pairs(setting, split))


def readme_markers(name: str) -> tuple[str, str]:
    """The comments that open and close the README block ``name``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def short_commit(commit: str) -> str:
    """A provenance commit as README blocks print it: 12 hex digits, ``+dirty`` kept."""
    return commit[:12] + ("+dirty" if commit.endswith("+dirty") else "")


class ReadmeBlock:
    """The text between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` of a README, checked when
    opened (before a script writes anything) and replaced, atomically, by :meth:`fill`.

    ``path`` is one file or a list of files (README.md and docs/RESULTS.md): the block is the one
    of the first file that holds its markers."""

    def __init__(self, path, name: str):
        from repro.errors import InputError

        paths = [path] if isinstance(path, str) else list(path)
        self.start, self.end = readme_markers(name)
        for self.path in paths:
            with open(self.path, encoding="utf-8") as f:
                self.text = f.read()
            if self.start in self.text and self.end in self.text:
                return
        raise InputError(", ".join(paths), f"no {self.start} ... {self.end} block to fill")

    def link(self, target: str) -> str:
        """``target`` (a path from the current folder) as a link from this block's file."""
        return os.path.relpath(target, os.path.dirname(os.path.abspath(self.path))).replace(os.sep, "/")

    def fill(self, block: str) -> None:
        """``block`` (which starts with the start marker and ends with the end marker) in place of the
        old one, in the file as it is now: another block of the same file may have been filled since
        this one was opened."""
        from repro.errors import InputError

        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()
        if self.start not in self.text or self.end not in self.text:
            raise InputError(self.path, f"no {self.start} ... {self.end} block to fill")
        head, rest = self.text.split(self.start, 1)
        self.text = head + block + rest.split(self.end, 1)[1]
        store.write_text(self.path, self.text)
