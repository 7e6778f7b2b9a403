"""Learned idf-rank weighted aggregation of word embeddings for very short texts.

A JAX implementation of De Boom, Van Canneyt, Demeester and Dhoedt, "Representation
learning for very short texts using weighted word embedding aggregation", Pattern
Recognition Letters, 2016.

Entry points: :class:`repro.encoder.Encoder` (texts to vectors, with shipped or learned
weights), :func:`repro.fit.fit` (the one way through training, on couples prepared once by
:func:`repro.prepared.prepare`; it returns a :class:`repro.modelrecord.ModelRecord`), and
``python -m repro <command>`` (:mod:`repro.cli`). Modules import only downward, in the layers
listed in ``setup.cfg`` (docs/LAYOUT.md). Importing the package sets the kernel pins of
:mod:`repro.kernels` first.
"""

from repro import kernels as _kernels

_kernels.apply()  # before NumPy and XLA start: the AVX2 cap (REPRO_NATIVE_KERNELS=1: none)

__version__ = "0.1.0"
