"""Whether this machine runs the XLA code the committed results were made with: the code class
(:func:`repro.pins.code_class`) recorded in results/repro-checksums.json. Bytes trained by
JAX/XLA are compared with committed bytes only within that class; elsewhere to a tolerance
(docs/REPRODUCIBILITY.md)."""

from __future__ import annotations

from experiments.reprocheck import CHECKSUMS
from repro import pins
from repro.io import store


def committed_class() -> str | None:
    """The code class of the machine that wrote the committed checksums."""
    return store.read_json(CHECKSUMS).get("provenance", {}).get("kernels", {}).get("code_class")


def same_class() -> bool:
    """Whether XLA compiles here as it did for the committed results."""
    return pins.code_class() == committed_class()
