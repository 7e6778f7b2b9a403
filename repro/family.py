"""The learned weights on transformed word spaces: the row family of issue 23 (not in the paper).

A member is the paper's model (eq. 3) on word vectors mapped once by a fixed
:class:`repro.transforms.Transform`, t = (1/n) sum_j z_j e'_(j), with the weights z learned by
Algorithm 1 on the mapped table under a training distance (:data:`DISTANCES`). Its maps are the
registry's (:data:`repro.wordmap.MAPS`, those with ``family=True``, :func:`maps`). The map is fitted
on the corpus's word counts or the training texts only, never on validation or test couples:

==========  ==========================================================================
member      e'_w
==========  ==========================================================================
plain       e_w (the paper's own space: the reference of the family)
centre      e_w - mu, mu = sum_w p(w) e_w
sif         a / (a + p(w)) e_w, a = 1e-3 (SIF's word weight, Arora et al. 2017)
usif        a / (a/2 + p(w)) e_w, a from V and the training texts' mean length (uSIF)
zipf        C^(-1/2) (e_w - mu), C the p(w)-weighted covariance (Zipfian whitening)
cc          e_w (I - c c^T), c the first right singular vector of the plain means of the
            distinct training texts (SIF's common component, removed from every word)
zipf_sif    a / (a + p(w)) C^(-1/2) (e_w - mu): whitened, then SIF-weighted
==========  ==========================================================================

Since t' = t (I - c c^T) for any weights, ``cc`` equals removing the component from the text
vectors; it is a word map, so the weights are learned with it in place. Which member, and which
training distance, is chosen per column on the validation couples
(:func:`choose`); the tables' row "learned weights, best transform (validation)" is the winner.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from repro import encodings, peerfamily, peers, settings, transforms, wordmap
from repro.fit import fit
from repro.prepared import prepare

#: Training distances of the losses a member is learned under: the paper's and 1 - cos, one per
#: metric (:data:`repro.settings.TABLE_METRICS`).
DISTANCES = settings.TABLE_METRICS
#: The family's kappa grid: every other value of :data:`repro.settings.KAPPA_GRID` (10 x 4^k),
#: so that the 14 fits of a column fit in make table1's time (docs/FIDELITY.md).
KAPPA_GRID = tuple(10.0 * 4.0 ** k for k in range(5))


class Member(NamedTuple):
    """One fit of the family: its word map's name and the training distance."""

    name: str
    distance: str

    @property
    def key(self) -> str:
        """The member's key in file names and score keys: ``<name>-<distance>``."""
        return f"{self.name}-{self.distance}"

    @property
    def label(self) -> str:
        return f"on {wordmap.named(self.name).label} under {'1 - cos' if self.distance == 'cosine' else 'the Euclidean distance'}"


#: The peer family's configurations (:mod:`repro.peerfamily`): the tables' row "Peers, best
#: configuration (validation)" is chosen among them by the same rule as the learned family's row.
PEER_CONFIGS = peerfamily.grid()
#: The peer family's configurations on STS, where fse's protocol removes up to 10 components.
PEER_CONFIGS_STS = peerfamily.grid(peerfamily.STS_COMPONENTS)


def budgets() -> dict:
    """The candidates each family chooses among on the validation couples, per column and metric:
    the learned family's members (kappa is chosen by grouped cross-validation on the training
    couples, not on validation) and the peer family's configurations, in the tables and on STS.
    The one registry of both searches: tests/test_peerfamily.py checks that the peers' is never
    the smaller."""
    return {"learned": len(members()), "peers": len(PEER_CONFIGS), "peers_sts": len(PEER_CONFIGS_STS)}


def maps() -> tuple[str, ...]:
    """The family's word maps: the registry's (:data:`repro.wordmap.MAPS`) with ``family=True``,
    in its order (the family table's)."""
    return wordmap.family()


def members() -> list[Member]:
    """Every (map, training distance) of the family, maps in :func:`maps` order."""
    return [Member(n, d) for n in maps() for d in DISTANCES]


def parse(key: str) -> Member:
    """The :class:`Member` of a key ``<name>-<distance>``; ValueError naming the known ones otherwise."""
    name, _, distance = key.rpartition("-")
    if name not in maps() or distance not in DISTANCES:
        raise ValueError(f"family member: unknown {key!r}; expected <{'|'.join(maps())}>-<{'|'.join(DISTANCES)}>")
    return Member(name, distance)


def member_map(name: str, table, counts, train) -> transforms.Transform:
    """The fixed map of member ``name`` (:func:`repro.wordmap.word_map`) for the (V, d) word
    vectors ``table`` (an array, or a checked :class:`repro.encodings.Table`) with their (V,) corpus
    ``counts``, fitted on the distinct texts of the ``train`` couples where it needs texts (uSIF's
    mean length, the common component) and never on other couples."""
    if name not in maps():
        raise ValueError(f"family member: unknown map {name!r}; expected one of {', '.join(maps())}")
    tokens, lengths = peers.training_texts(train)
    return wordmap.word_map(name, table, counts, length=float(np.mean(lengths)), texts=(tokens, lengths))


def fits(table, counts, texts, couples, n_max: int, kappa, *, names=None, distances=DISTANCES, **options):
    """Fit the members of the family: for each map of ``names`` (default: :func:`maps`), fitted
    by :func:`member_map` on ``counts`` and the texts of the ``texts`` couples, and each training
    distance of ``distances`` (default :data:`DISTANCES`), the median loss by :func:`repro.fit.fit`
    on the ``couples`` prepared on the mapped table. ``kappa(member)`` gives (kappa, its source),
    (None, None) for the cross-validated search; ``options`` go to ``fit``. The table is checked
    once (:class:`repro.encodings.Table`) and passed down as checked; each map makes one mapped
    table (none for the identity), each member one device copy (:func:`repro.prepared.prepare`).
    Yields (member, its word map, its ModelRecord, seconds), in :func:`members` order."""
    table = encodings.as_table(table)
    for name in maps() if names is None else names:
        t = member_map(name, table, counts, texts)
        mapped = table.mapped(t)
        for distance in distances:
            member, t0 = Member(name, distance), time.perf_counter()
            k, source = kappa(member)
            record = fit(prepare(mapped.host, couples, n_max, distance=distance, checked=True), "median", k,
                         kappa_source=source, distance=distance, **options)
            yield member, t, record, time.perf_counter() - t0


def choose(validation_errors: dict) -> tuple[str, float]:
    """The member key of the lowest validation split error among ``validation_errors`` {key:
    error} (ties: the earlier member of :func:`members`), and that error."""
    order = {m.key: i for i, m in enumerate(members())}
    key = min(validation_errors, key=lambda k: (validation_errors[k], order.get(k, len(order))))
    return key, float(validation_errors[key])
