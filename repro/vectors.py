"""Word vectors on disk without pickle: ``vectors.npy`` (V, d) float32 plus ``vocab.txt``.

Row i of the matrix is the vector of line i of ``vocab.txt`` (UTF-8, one word per line).
"""

from __future__ import annotations

import os

import numpy as np


def save_vectors(directory: str, words: list[str], matrix: np.ndarray) -> None:
    """Write ``words`` and ``matrix`` into ``directory`` atomically (temp names, then rename)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise ValueError(f"{directory}: matrix shape {matrix.shape} does not match {len(words)} words")
    if any(("\n" in w) or (w == "") for w in words):
        raise ValueError(f"{directory}: words must be non-empty and contain no newline")
    os.makedirs(directory, exist_ok=True)
    vec, voc = os.path.join(directory, "vectors.npy"), os.path.join(directory, "vocab.txt")
    np.save(vec + ".tmp.npy", matrix)
    with open(voc + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(words) + "\n")
    os.replace(voc + ".tmp", voc)
    os.replace(vec + ".tmp.npy", vec)  # vectors.npy last: its presence means complete


def load_vectors(directory: str, mmap: bool = False) -> tuple[list[str], np.ndarray]:
    """Read what :func:`save_vectors` wrote; ``ValueError`` naming the file on bad input."""
    vec, voc = os.path.join(directory, "vectors.npy"), os.path.join(directory, "vocab.txt")
    for path in (vec, voc):
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file")
    try:
        matrix = np.load(vec, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (OSError, ValueError) as err:
        raise ValueError(f"{vec}: cannot read vectors ({err})") from None
    with open(voc, encoding="utf-8") as f:
        words = f.read().split("\n")[:-1]
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise ValueError(f"{vec}: {matrix.shape[0]} rows but {voc} has {len(words)} words")
    return words, matrix
