"""Learned idf-rank weighted aggregation of word embeddings for very short texts.

A JAX implementation of De Boom, Van Canneyt, Demeester and Dhoedt, "Representation
learning for very short texts using weighted word embedding aggregation", Pattern
Recognition Letters, 2016.

The face: the few names a researcher needs, loaded on first use (``import repro`` itself
imports neither JAX nor NumPy)::

    from repro import Encoder                  # texts to vectors, shipped or learned weights
    from repro import prepare, fit, ModelRecord  # Algorithm 1 on couples prepared once
    from repro import represent                # the paper's text vector (eq. 3)

The rest lives in subpackages by concern, each importing only the ones below it (setup.cfg,
docs/LAYOUT.md): :mod:`repro.core` (the paper: model, losses, Algorithm 1, protocol),
:mod:`repro.io` (files), :mod:`repro.words` (tokens, df, idf ranks), :mod:`repro.spaces` (word
spaces and their maps), :mod:`repro.encode` (the Encoder and its parts), :mod:`repro.evaluate`
(the tables' scoring, peers, families, STS), :mod:`repro.data` (the chain's data stages) and
:mod:`repro.commands` (``python -m repro <command>``, :mod:`repro.cli`). Importing the package
sets the kernel pins of :mod:`repro.pins` first.
"""

from repro import pins as _pins

_pins.apply()  # before NumPy and XLA start: the AVX2 cap (REPRO_NATIVE_KERNELS=1: none)

__version__ = "0.1.0"

#: The face's names and the modules that hold them, imported on first use (as optax's face does).
_FACE = {
    "Encoder": "repro.encode.encoder",
    "fit": "repro.core.fit",
    "prepare": "repro.core.prepared",
    "ModelRecord": "repro.core.modelrecord",
    "represent": "repro.core.model",
}
__all__ = ["Encoder", "ModelRecord", "__version__", "fit", "prepare", "represent"]


def __getattr__(name: str):
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'repro' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
