"""Generated blocks of Markdown files: the text between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` that a script rewrites (the tables and findings of README.md and
docs/RESULTS.md, the speed block of docs/RESULTS.md, the kernel table of
docs/REPRODUCIBILITY.md). The one writer of them all: the markers are checked when a block is
opened, before a script writes anything, and the file is rewritten atomically
(:func:`repro.io.store.write_text`)."""

from __future__ import annotations

import os

from repro.io import store
from repro.errors import InputError


def readme_markers(name: str) -> tuple[str, str]:
    """The comments that open and close the block ``name``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def short_commit(commit: str) -> str:
    """A provenance commit as README blocks print it: 12 hex digits, ``+dirty`` kept."""
    return commit[:12] + ("+dirty" if commit.endswith("+dirty") else "")


class ReadmeBlock:
    """The block ``name`` of a Markdown file, checked when opened and replaced by :meth:`fill`.

    ``path`` is one file or a list of files (README.md and docs/RESULTS.md): the block is the one
    of the first file that holds its markers; none holding them is an :class:`InputError`."""

    def __init__(self, path, name: str):
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
        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()
        if self.start not in self.text or self.end not in self.text:
            raise InputError(self.path, f"no {self.start} ... {self.end} block to fill")
        head, rest = self.text.split(self.start, 1)
        self.text = head + block + rest.split(self.end, 1)[1]
        store.write_text(self.path, self.text)

    def fill_body(self, body: str) -> None:
        """:meth:`fill` with ``body`` on the lines between the markers."""
        self.fill(f"{self.start}\n{body}\n{self.end}")
