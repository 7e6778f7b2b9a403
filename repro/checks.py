"""Input checks at the library's boundaries: one definition each, shared by the model, the
baselines, the couples, training and scoring.

Every check raises ``ValueError`` whose text starts with the argument's name (``"table: ..."``),
runs on the host in NumPy (a large table is checked in row blocks, never copied to a device),
and returns the array it checked, so a caller can write ``w = check_weights(w)``.
"""

from __future__ import annotations

import numpy as np

#: Rows x columns of a table checked at once: 2**22 values, 16-32 MiB.
_BLOCK_ELEMENTS = 1 << 22


def check_weights(w, name: str = "w") -> np.ndarray:
    """A finite, non-empty (n_max,) weight vector."""
    w = np.asarray(w)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"{name}: must be a non-empty 1-D weight vector, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError(f"{name}: contains NaN or infinite values")
    return w


def check_table(table, name: str = "table") -> np.ndarray:
    """A non-empty (V, d) float matrix of finite values (the first bad row is named)."""
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(f"{name}: must be a non-empty 2-D (vocabulary, dims) array, got shape {table.shape}")
    if not np.issubdtype(table.dtype, np.floating):
        raise ValueError(f"{name}: must hold floats, got dtype {table.dtype}")
    step = max(1, _BLOCK_ELEMENTS // table.shape[1])
    for start in range(0, table.shape[0], step):
        ok = np.isfinite(table[start:start + step])
        if not ok.all():
            row = start + int(np.argwhere(~ok)[0, 0])
            raise ValueError(f"{name}: contains NaN or infinite values (first at row {row})")
    return table


def check_lengths(lengths, width: int, allow_empty: bool = True, name: str = "lengths",
                  rows: int | None = None) -> np.ndarray:
    """(B,) integer text lengths in 0..width (1..width unless ``allow_empty``); B = ``rows`` if given."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(f"{name}: must be 1-D, got shape {lengths.shape}")
    if rows is not None and lengths.shape[0] != rows:
        raise ValueError(f"{name}: has {lengths.shape[0]} entries for {rows} texts")
    if not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"{name}: must hold integers, got dtype {lengths.dtype}")
    if lengths.size and lengths.max() > width:
        raise ValueError(f"{name}: a length of {int(lengths.max())} exceeds the width {width}")
    low = 0 if allow_empty else 1
    bad = np.flatnonzero(lengths < low)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}[{i}] is {int(lengths[i])}: a text needs at least one in-vocabulary word "
            "(pass allow_empty=True to map empty texts to the zero vector)"
            if lengths[i] == 0 else f"{name}[{i}] is negative"
        )
    return lengths


def check_tokens(tokens, vocab_size: int, name: str = "tokens", lengths=None) -> np.ndarray:
    """A (B, W) integer array of rows 0..vocab_size-1. With ``lengths`` only the positions in
    use are range-checked (padding is never read, whatever it holds)."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"{name}: must be a 2-D (texts, width) array, got shape {tokens.shape}")
    if not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"{name}: must hold integer word indices, got dtype {tokens.dtype}")
    used = tokens if lengths is None else tokens[np.arange(tokens.shape[1]) < np.asarray(lengths)[:, None]]
    if used.size and (used.min() < 0 or used.max() >= vocab_size):
        raise ValueError(f"{name}: word indices must lie in 0..{vocab_size - 1}")
    return tokens


def check_texts(tokens, lengths, vocab_size: int, name: str = "tokens") -> tuple[np.ndarray, np.ndarray]:
    """(B, W) token rows and their (B,) lengths in 0..W, the rows checked only where in use
    (:func:`check_lengths`, :func:`check_tokens`); the lengths are named after ``name``
    (``lengths`` for ``tokens``, ``len_a`` for ``tokens_a`` or ``pairs.a``)."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"{name}: must be a 2-D (texts, width) array, got shape {tokens.shape}")
    lname = "lengths" if name == "tokens" else f"len_{name[-1]}"
    lengths = check_lengths(lengths, tokens.shape[1], allow_empty=True, name=lname, rows=tokens.shape[0])
    return check_tokens(tokens, vocab_size, name, lengths=lengths), lengths


def check_idf(idf, vocab_size: int | None = None, name: str = "idf") -> np.ndarray:
    """A finite (V,) idf vector, V = ``vocab_size`` when given."""
    idf = np.asarray(idf, dtype=np.float64)
    if idf.ndim != 1:
        raise ValueError(f"{name}: must be a 1-D array, got shape {idf.shape}")
    if vocab_size is not None and idf.shape[0] != vocab_size:
        raise ValueError(f"{name}: length {idf.shape[0]} != vocabulary size {vocab_size} (table rows)")
    if not np.isfinite(idf).all():
        raise ValueError(f"{name}: contains NaN or infinite values")
    return idf


def check_groups(groups, labels) -> np.ndarray:
    """(P,) integer clusters of the couples of (P,) ``labels`` (their article, or their component
    of related tweet couples): what a grouped fold and a cluster bootstrap resample by."""
    groups, labels = np.asarray(groups), np.asarray(labels)
    if groups.shape != labels.shape or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(f"groups must be a (P,) integer array like labels {labels.shape}, "
                         f"got {groups.dtype} {groups.shape}")
    return groups


def check_pairs(pairs, name: str = "pairs", vocab_size: int | None = None) -> None:
    """The five arrays of a :class:`repro.core.pairset.PairSet` are consistent (shapes, lengths within
    the width, labels 0 or 1, and with ``vocab_size`` word indices in range)."""
    a, b, la, lb, y = (np.asarray(x) for x in pairs)
    if a.ndim != 2 or b.shape != a.shape:
        raise ValueError(f"{name}: a and b must be 2-D arrays of one shape, got {a.shape} and {b.shape}")
    p = a.shape[0]
    for key, arr in (("len_a", la), ("len_b", lb), ("label", y)):
        if arr.shape != (p,):
            raise ValueError(f"{name}: {key} must have shape ({p},), got {arr.shape}")
    if p and (la.min() < 0 or lb.min() < 0 or la.max() > a.shape[1] or lb.max() > a.shape[1]):
        raise ValueError(f"{name}: lengths must lie in 0..{a.shape[1]} (the width)")
    if p and not np.isin(y, (0, 1)).all():
        raise ValueError(f"{name}: labels must be 0 (unrelated) or 1 (related)")
    if vocab_size is not None and p and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= vocab_size):
        raise ValueError(f"{name}: word indices must lie in 0..{vocab_size - 1}")
