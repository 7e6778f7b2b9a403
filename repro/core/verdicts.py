"""Verdicts over seeds: "better" or "worse" only when it holds over the test couples and over the
runs (issue 46; not in the paper, which reports one run).

A comparison of two rows, a against b, has two sources of randomness. The test couples drawn:
the paired stratified cluster bootstrap of :func:`repro.core.metrics.paired_bootstrap` resamples
whole clusters (articles, tweet components) and says how far one run's difference could move.
And the run's own: word2vec's initialisation and sampling, training's batches, the kappa folds,
another BLAS kernel (which acts as another seed). One run's interval does not see the second, so a
verdict from one seed can flip with the seed.

The rule here, for S seeds scored on the **same** test couples (the couples and their splits stay
fixed across seeds, so the seeds are paired; docs/REPRODUCIBILITY.md):

1. **A two-level bootstrap** of the seed-mean difference of split errors. Each resample draws the
   clusters once (stratified, as for one run; the same draw for every seed, since the couples are
   shared) and S seeds with replacement, and averages the drawn seeds' differences on the drawn
   clusters. Its percentile interval counts both sources (Bouthillier et al., MLSys 2021, model a
   benchmark's variance as data sampling plus the run's randomness).
2. **The same sign in every seed.** With 5 seeds the seed draw alone is coarse; a method that is
   ahead in four runs and behind in one is not "better", whatever the interval says.

The words (:data:`WORDS`): ``better`` (a's error lower) when the interval lies below 0 and every
seed's difference is below 0; ``worse`` mirrored; ``depends on the seed`` when the interval
excludes 0 but some seed's difference has the other sign (or is 0); ``level`` otherwise. With one
seed the rule is the one-run paired cluster bootstrap, resample for resample.

**Over sets of seeds** (:func:`across_sets`). A claim near the rule's edge can read "worse" over one
set of five seeds and "level" over another (or on another machine, whose BLAS kernel acts as other
seeds). A published word is therefore checked against such sets: where any of them gives another
word, the claim is not a verdict, and it reads ``depends on the seed``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.core import metrics

WORDS = ("better", "worse", "level", "depends on the seed")


class SeedVerdict(NamedTuple):
    """A seed-aware comparison of row a against row b (split errors as fractions)."""

    word: str  # one of WORDS
    difference: float  # seed-mean split error of a minus b
    low: float  # the two-level percentile interval of the difference
    high: float
    per_seed: tuple  # (S,) each seed's difference
    seeds: int
    n_boot: int
    one_run: tuple = ()  # (S,) the word each seed's run gives alone (its own paired cluster bootstrap)


def word_of(low: float, high: float, per_seed) -> str:
    """The verdict's word from the two-level interval (``low``, ``high``) and the (S,) per-seed
    differences (see the module)."""
    per_seed = np.asarray(per_seed, np.float64)
    if high < 0:
        return "better" if (per_seed < 0).all() else "depends on the seed"
    if low > 0:
        return "worse" if (per_seed > 0).all() else "depends on the seed"
    return "level"


def across_sets(words) -> str:
    """The word of one claim over several sets of seeds (the published set and its check sets: other
    seeds, another BLAS kernel or machine): the word every set gives, or ``depends on the seed``
    where they do not all give the same one.

    Args:
      words: the word of each set (at least one), each of :data:`WORDS` or ``not ranked``.
    """
    words = list(words)
    if not words:
        raise ValueError("across_sets needs the word of at least one set")
    return words[0] if len(set(words)) == 1 else "depends on the seed"


def seed_verdict(wrongs_a, wrongs_b, labels, groups=None, *, level: float = 0.95, n_boot: int = 2000,
                 seed: int = 0) -> SeedVerdict:
    """Row a against row b over S seeds, both sources of randomness counted.

    Args:
      wrongs_a, wrongs_b: (S, P) bool, the test couples each seed's row misclassifies at its own
        validation threshold; the P test couples are the same in every seed.
      labels: (P,) 1 related, 0 unrelated.
      groups: (P,) int clusters of the related couples (None: couples taken as independent).
      level: the interval's coverage.
      n_boot: resamples; seed: the resampling's seed (the clusters' draws are those of
        :func:`repro.core.metrics.paired_resamples` with it).

    Returns:
      A :class:`SeedVerdict`; ``difference`` is the mean of the S per-seed differences.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    a, b = np.asarray(wrongs_a, bool), np.asarray(wrongs_b, bool)
    if a.ndim != 2 or a.shape[0] < 1:
        raise ValueError(f"wrongs_a: need (S, P) with at least one seed, got shape {a.shape}")
    d, observed = metrics.paired_resamples(a, b, labels, groups, n_boot, seed)  # (n_boot, S), (S,)
    s = a.shape[0]
    picks = np.random.default_rng([seed, 1]).integers(0, s, (int(n_boot), s))  # the seeds drawn
    pooled = np.take_along_axis(d, picks, axis=1).mean(axis=1)  # one seed: its own resamples, exactly
    alpha = (1.0 - level) / 2
    low, high = (float(x) for x in np.quantile(pooled, [alpha, 1.0 - alpha]))
    per_seed = tuple(float(x) for x in observed)
    lows, highs = np.quantile(d, [alpha, 1.0 - alpha], axis=0)  # (S,) each seed's own interval
    one_run = tuple(word_of(float(lo), float(hi), [o]) for lo, hi, o in zip(lows, highs, observed))
    return SeedVerdict(word_of(low, high, per_seed), float(np.mean(observed)), low, high, per_seed, s, int(n_boot),
                       one_run)
