"""Where every file of the chain lives under one data folder (the Makefile's ``DATA``).

The formats themselves, with their checked loaders and atomic writers, are :mod:`repro.io.store`.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Layout(NamedTuple):
    """The files of one data folder (the Makefile's ``DATA``), stage by stage."""

    root: str = "data"

    def path(self, *parts: str) -> str:
        return os.path.join(self.root, *parts)

    @property
    def paragraphs(self) -> str:
        return self.path("paragraphs.tsv")

    @property
    def w2v(self) -> str:
        return self.path("w2v")

    @property
    def vocab(self) -> str:
        return self.path("w2v", "vocab.txt")

    @property
    def vectors(self) -> str:
        return self.path("w2v", "vectors.npy")

    @property
    def df(self) -> str:
        return self.path("df.npz")

    def pairs(self, setting: str, split: str) -> str:
        return self.path(setting, f"{split}.npz")

    def pairs_groups(self, setting: str) -> str:
        return self.path(setting, "groups.npz")

    def pairs_summary(self, setting: str) -> str:
        return self.path(setting, "summary.json")

    def model(self, setting: str, loss: str) -> str:
        return self.path("models", f"{setting}-{loss}.npz")

    def family(self, setting: str, member: str) -> str:
        """The model file of one member of the learned family (:mod:`repro.evaluate.family`), ``<map>-<distance>``."""
        return self.path("family", setting, f"{member}.npz")

    def family_summary(self, setting: str) -> str:
        return self.path("family", setting, "summary.json")

    def family_part(self, setting: str, distance: str) -> str:
        """The summary of the members of one training distance (``train_family --distance``)."""
        return self.path("family", setting, f"summary-{distance}.json")

    def scores_rows(self, setting: str) -> str:
        """The scores of every row but the learned family's (``experiments.score --part rows``)."""
        return self.path("scores", f"{setting}-rows.npz")

    def scores(self, setting: str) -> str:
        return self.path("scores", f"{setting}.npz")

    @property
    def timings(self) -> str:
        return self.path("timings")
