"""Inverse document frequency (paper, equation 1)."""

from __future__ import annotations

import numpy as np


def idf(df, n_docs: int) -> np.ndarray:
    """idf = log(N / (1 + df)), natural log, as in the paper's equation 1.

    ``df`` holds document frequencies (a document is one paragraph, as in the original
    code); ``n_docs`` is N, the number of documents. Only the order of idf values
    matters for the learned-weight model; the idf-weighted and tf-idf baselines use the
    values themselves.
    """
    df = np.asarray(df, dtype=np.float64)
    if n_docs <= 0:
        raise ValueError(f"n_docs must be positive, got {n_docs}")
    if (df < 0).any():
        raise ValueError("df: document frequencies must be non-negative")
    return np.log(n_docs / (1.0 + df))
