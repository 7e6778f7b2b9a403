"""How a couple of text vectors is scored: the paper's minus Euclidean distance, or the cosine.

Both are similarities (higher = more related), computed in float64:

* ``euclidean`` (the default): s = -||t_a - t_b||, the paper's distance (eq. 2) with its sign
  turned, the score the weights are learned and evaluated with (Algorithm 1, section 5). Its
  scale follows the vectors': with learned weights near 0.03 two paraphrases score about -0.005;
  only the order of the scores means something.
* ``cosine``: s = t_a . t_b / (||t_a|| ||t_b||), in [-1, 1], the convention of most sentence
  encoders and of the STS Benchmark; blind to the vectors' lengths, so it ranks couples
  differently from the Euclidean distance. A couple with a zero vector (a text without a known
  word) scores 0, as the tf-idf baseline does (docs/FIDELITY.md).
"""

from __future__ import annotations

import numpy as np

from repro.settings import TABLE_METRICS

#: The metrics, the paper's first (the default everywhere): the one list of them,
#: :data:`repro.settings.TABLE_METRICS`, which every training distance, CLI choice and table reads.
METRICS = TABLE_METRICS


def check_metric(metric: str, name: str = "metric") -> str:
    """``metric`` when it is one of :data:`METRICS`; ValueError naming ``name`` otherwise."""
    if metric not in METRICS:
        raise ValueError(f"{name}: expected one of {', '.join(METRICS)}, got {metric!r}")
    return metric


def vector_scores(a: np.ndarray, b: np.ndarray, metric: str = "euclidean") -> np.ndarray:
    """(P,) float64 scores of the couples (a[i], b[i]) of (P, d) text vectors, higher = more related."""
    check_metric(metric)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"vectors: need two (P, d) arrays of one shape, got {a.shape} and {b.shape}")
    if metric == "euclidean":
        return -np.linalg.norm(a - b, axis=1)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    cosine = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return np.clip(cosine, -1.0, 1.0, out=cosine)  # rounding may step past +-1
