"""A table's column over several seeds (issue 46, not in the paper, which reports one run): each
row's split error and JS divergence as their mean, standard deviation and range over S runs scored
on the same test couples, the seed-aware verdicts of :mod:`repro.core.verdicts`, how often each
per-seed choice was made, and the band a further run's number should fall in.

The S runs differ only in their own randomness (word2vec, training's initialisation and batches,
the kappa folds; another BLAS kernel acts as another seed): the couples and their splits are the
same in every seed, so two rows are compared seed by seed on the same couples
(docs/REPRODUCIBILITY.md, "Verdicts over seeds").
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
from scipy import stats

from repro.core import metrics, verdicts

#: The comparisons the verdicts over seeds make in every column: (name, row of ours, against).
#: "paper_baseline" is the paper's baselines' best by mean test error in the column (a choice on
#: test: the strongest baseline in hindsight); "peer_best" is the peers' best configuration, chosen
#: on each seed's validation couples as the learned family's member is.
CLAIMS = (("paper", "learned_median", "paper_baseline"),
          ("peers", "learned_best", "peer_best"),
          ("paper_vs_peers", "learned_median", "peer_best"))

#: A member whose test split error spreads over more than this (max - min over the seeds, as a
#: fraction) is flagged unstable in the family's table.
UNSTABLE_RANGE = 0.03


class SeedColumn(NamedTuple):
    """One column of a table (one setting, one metric) over S seeds."""

    seeds: tuple  # (S,) the seeds, in order
    labels: np.ndarray  # (P,) the test couples' labels, the same in every seed
    groups: np.ndarray | None  # (P,) their bootstrap units (articles, tweet components)
    errors: dict  # method -> (S,) test split errors (fractions)
    js: dict  # method -> (S,) JS divergences
    wrongs: dict  # method -> (S, P) bool, the test couples each seed's row misclassifies


def column(per_seed: list, seeds, methods) -> SeedColumn:
    """The rows ``methods`` of one column from each seed's scores.

    Args:
      per_seed: S dicts as :func:`repro.evaluate.report.table_scores` gives them (``validation_<m>``,
        ``test_<m>``, ``validation_label``, ``test_label`` and, where the couples have units,
        ``test_group``), one per seed.
      seeds: (S,) the seeds' numbers, for the messages and the record.
      methods: the rows.

    Returns:
      A :class:`SeedColumn`. Raises ValueError when a seed's test couples are not seed 0's (the
      same labels and units): seeds on other couples are not paired.
    """
    if not per_seed:
        raise ValueError("no seeds")
    first = per_seed[0]
    labels, groups = np.asarray(first["test_label"]), first.get("test_group")
    for s, z in zip(seeds, per_seed):
        other = z.get("test_group")
        if not np.array_equal(np.asarray(z["test_label"]), labels) or (groups is None) != (other is None) or (
                groups is not None and not np.array_equal(np.asarray(other), np.asarray(groups))):
            raise ValueError(f"seed {s}: its test couples are not seed {seeds[0]}'s (a seed must keep the couples)")
    errors, js, wrongs = {}, {}, {}
    for m in methods:
        e, j, w = [], [], []
        for z in per_seed:
            sp = metrics.split(z[f"validation_{m}"], z["validation_label"], z[f"test_{m}"], z["test_label"])
            e.append(sp.error)
            j.append(metrics.js_divergence(z[f"validation_{m}"], z[f"test_{m}"], z["test_label"]))
            w.append(sp.wrong)
        errors[m], js[m], wrongs[m] = np.asarray(e), np.asarray(j), np.stack(w)
    return SeedColumn(tuple(seeds), labels, None if groups is None else np.asarray(groups), errors, js, wrongs)


def spread(values) -> dict:
    """Mean, standard deviation (S - 1 in the denominator; 0 for one value), min, max and the
    values themselves of (S,) numbers."""
    v = np.asarray(values, np.float64)
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            "min": float(v.min()), "max": float(v.max()), "per_seed": [float(x) for x in v]}


def rows(col: SeedColumn) -> dict:
    """{method: {"split_error": spread, "js": spread}} of a column."""
    return {m: {"split_error": spread(col.errors[m]), "js": spread(col.js[m])} for m in col.errors}


def rankable(col: SeedColumn) -> bool:
    """Whether the column's related test couples have the clusters to rank rows by the cluster
    bootstrap (:data:`repro.core.metrics.MIN_CLUSTERS` effective clusters)."""
    return metrics.effective_clusters(col.labels, col.groups) >= metrics.MIN_CLUSTERS


def verdict(col: SeedColumn, a: str, b: str, n_boot: int = 2000) -> dict:
    """Row ``a`` against row ``b`` over the seeds (:func:`repro.core.verdicts.seed_verdict`), as a
    plain dict; its word is "not ranked" where the column is not :func:`rankable`."""
    v = verdicts.seed_verdict(col.wrongs[a], col.wrongs[b], col.labels, col.groups, n_boot=n_boot)
    out = v._asdict()
    out["per_seed"], out["one_run"] = list(v.per_seed), list(v.one_run)
    if not rankable(col):
        out["word"] = "not ranked"
    return out


def counts(choices) -> list:
    """[(choice, times)] of the per-seed ``choices``, the most frequent first (ties in first-seen order)."""
    c = Counter(choices)
    order = list(dict.fromkeys(choices))
    return sorted(c.items(), key=lambda kv: (-kv[1], order.index(kv[0])))


def unstable(errors, limit: float = UNSTABLE_RANGE) -> bool:
    """Whether (S,) test split errors spread over more than ``limit`` (max - min)."""
    e = np.asarray(errors, np.float64)
    return bool(e.size > 1 and e.max() - e.min() > limit)


def interval_word(intervals) -> str:
    """The word over seeds of a comparison whose seeds each give a paired 95% interval of a
    difference where higher is better (the STS Benchmark's Pearson, ours minus theirs): "better"
    when every seed's interval lies above 0, "worse" when every one lies below, "depends on the
    seed" when some lie on one side and the others do not all agree, "level" when none excludes 0.
    Stricter than :func:`repro.core.verdicts.seed_verdict` (each seed must be sure on its own): the
    STS pairs are not split into clusters, so there is no two-level resampling to make."""
    above = [d["low"] > 0 for d in intervals]
    below = [d["high"] < 0 for d in intervals]
    if intervals and all(above):
        return "better"
    if intervals and all(below):
        return "worse"
    return "depends on the seed" if any(above) or any(below) else "level"


def band(values, level: float = 0.99, floor: float = 0.0) -> tuple[float, float]:
    """Where one more run's number should fall, from S runs: the prediction interval
    mean +- t(level, S - 1) * sd * sqrt(1 + 1/S) (normal runs), at least +- ``floor`` (the printed
    resolution, for numbers no seed moves); with one run, the run +- ``floor``."""
    v = np.asarray(values, np.float64)
    mean = float(v.mean())
    if v.size < 2:
        return mean - floor, mean + floor
    half = float(stats.t.ppf(0.5 + level / 2, v.size - 1) * v.std(ddof=1) * np.sqrt(1 + 1 / v.size))
    half = max(half, floor)
    return mean - half, mean + half
