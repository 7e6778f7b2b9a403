"""The learned weights on transformed word spaces: the row family of issue 23 (not in the paper).

A member is the paper's model (eq. 3) on word vectors mapped once by a fixed
:class:`repro.spaces.transforms.Transform`, t = (1/n) sum_j z_j e'_(j), with the weights z learned by
Algorithm 1 on the mapped table under a training distance (:data:`DISTANCES`). Its maps are the
registry's (:data:`repro.spaces.wordmap.MAPS`, those with ``family=True``, :func:`maps`). The map is fitted
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

from repro import settings
from repro.core import pairset
from repro.evaluate import peerfamily, scoring
from repro.spaces import transforms, wordmap
from repro.core.fit import fit
from repro.core.prepared import prepare

#: Training distances of the losses a member is learned under: the paper's and 1 - cos, one per
#: metric (:data:`repro.settings.TABLE_METRICS`).
DISTANCES = settings.TABLE_METRICS
#: The family's kappa grid: every other value of :data:`repro.settings.KAPPA_GRID` (10 x 4^k),
#: so that the 14 fits of a column fit in make table1's time (docs/FIDELITY.md).
KAPPA_GRID = tuple(10.0 * 4.0 ** k for k in range(5))


#: The spaces a member's weights are learned on: the corpus's word vectors, or the static token
#: space of :mod:`repro.evaluate.tokentables` (WordLlama's tokens; issue 34 item 3).
SPACES = ("words", "tokens")
#: The prefix of the token members' keys (and of the token peer configurations' score names).
TOKEN_PREFIX = "wordllama_"
#: The family's maps on the token space (names of :func:`maps`): the raw token vectors and the
#: Zipfian-whitened ones (p(t) from the corpus's token counts).
TOKEN_MAPS = ("plain", "zipf")
TOKEN_LABELS = {"plain": "WordLlama's raw token vectors", "zipf": "WordLlama's Zipfian-whitened token vectors"}
#: The token members' kappa grid: the first four values of :data:`KAPPA_GRID` (10 x 4^k for
#: k = 0..3), searched on beyond an edge that wins as every search is; one batched call of the
#: cross-validation fewer than the five values, so that the members fit in make table1's time
#: (docs/FIDELITY.md).
TOKEN_KAPPA_GRID = KAPPA_GRID[:4]


class Member(NamedTuple):
    """One fit of the family: its word map's name, the training distance, and the space
    (:data:`SPACES`) the map and the weights are on."""

    name: str
    distance: str
    space: str = "words"

    @property
    def key(self) -> str:
        """The member's key in file names and score keys: ``<name>-<distance>`` on the words,
        ``wordllama_<name>-<distance>`` on the token space."""
        return f"{TOKEN_PREFIX if self.space == 'tokens' else ''}{self.name}-{self.distance}"

    @property
    def label(self) -> str:
        space = TOKEN_LABELS[self.name] if self.space == "tokens" else wordmap.named(self.name).label
        return f"on {space} under {'1 - cos' if self.distance == 'cosine' else 'the Euclidean distance'}"


#: The peer family's configurations (:mod:`repro.evaluate.peerfamily`): the tables' row "Peers, best
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


def maps(space: str = "words") -> tuple[str, ...]:
    """The family's word maps on ``space``: on the words the registry's (:data:`repro.spaces.wordmap.MAPS`)
    with ``family=True``, in its order (the family table's); on the tokens :data:`TOKEN_MAPS`."""
    if space not in SPACES:
        raise ValueError(f"space: expected one of {', '.join(SPACES)}, got {space!r}")
    return TOKEN_MAPS if space == "tokens" else wordmap.family()


def members(space: str = "words") -> list[Member]:
    """Every (map, training distance) of the family on ``space``, maps in :func:`maps` order."""
    return [Member(n, d, space) for n in maps(space) for d in DISTANCES]


def keys() -> list[str]:
    """The keys of the members on both spaces: the words' first, then the tokens'."""
    return [m.key for space in SPACES for m in members(space)]


def _keyed(key: str, space: str) -> Member:
    """The :class:`Member` of ``key`` on ``space`` (the tokens' keys carry :data:`TOKEN_PREFIX`);
    ValueError naming the known keys otherwise."""
    prefix = TOKEN_PREFIX if space == "tokens" else ""
    name, _, distance = key[len(prefix):].rpartition("-")  # the callers give the tokens' keys with their prefix
    if name not in maps(space) or distance not in DISTANCES:
        raise ValueError(f"{'token family' if prefix else 'family'} member: unknown {key!r}; expected "
                         f"{prefix}<{'|'.join(maps(space))}>-<{'|'.join(DISTANCES)}>")
    return Member(name, distance, space)


def parse(key: str) -> Member:
    """The :class:`Member` of a key ``<name>-<distance>`` on the words; ValueError naming the known
    ones otherwise."""
    return _keyed(key, "words")


def member(key: str) -> Member:
    """The member of either space named ``key``: ``wordllama_<map>-<distance>`` on the tokens, else
    :func:`parse`'s (ValueError naming the known keys)."""
    return _keyed(key, "tokens" if key.startswith(TOKEN_PREFIX) else "words")


def short_name(key: str) -> str:
    """A member's map in a few words: the word map's name (``zipf``), ``WordLlama zipf`` on the tokens."""
    m = member(key)
    return f"WordLlama {m.name}" if m.space == "tokens" else m.name


def member_map(name: str, table, counts, train, space: str = "words") -> transforms.Transform:
    """The fixed map of member ``name`` (:func:`repro.spaces.wordmap.word_map`) for the (V, d) word
    vectors ``table`` (an array, or a checked :class:`repro.evaluate.scoring.Table`) with their (V,) corpus
    ``counts``, fitted on the distinct texts of the ``train`` couples where it needs texts (uSIF's
    mean length, the common component) and never on other couples."""
    if name not in maps(space):
        raise ValueError(f"family member: unknown map {name!r}; expected one of {', '.join(maps(space))}")
    tokens, lengths = pairset.training_texts(train)
    return wordmap.word_map(name, table, counts, length=float(np.mean(lengths)), texts=(tokens, lengths))


def fits(table, counts, texts, couples, n_max: int, kappa, *, space: str = "words", names=None,
         distances=DISTANCES, **options):
    """Fit the members of the family on ``space`` (the table's own vectors are the words' or the tokens').

    For each map of ``names`` (default: :func:`maps` of ``space``), fitted by :func:`member_map` on
    ``counts`` and the texts of the ``texts`` couples, and each training distance of ``distances``,
    the median loss (eq. 4) by :func:`repro.core.fit.fit` on the ``couples`` prepared on the mapped
    table. The table is checked once and passed down as checked; each map makes one mapped table
    (none for the identity), each member one device copy (:func:`repro.core.prepared.prepare`).

    Args:
      table: (V, d) float word (or token) vectors, or a checked :class:`repro.evaluate.scoring.Table`.
      counts: (V,) corpus counts (p(w) of the maps).
      texts: the :class:`repro.core.pairset.PairSet` whose distinct texts fit the maps.
      couples: the training :class:`~repro.core.pairset.PairSet`.
      n_max: the number of learned weights.
      kappa: ``kappa(member)`` -> (kappa, its source), (None, None) for the cross-validated search.
      options: passed to ``fit``.

    Yields:
      (:class:`Member`, its :class:`~repro.spaces.transforms.Transform`, its
      :class:`~repro.core.modelrecord.ModelRecord`, seconds), in :func:`members` order.
    """
    table = scoring.as_table(table)
    for name in maps(space) if names is None else names:
        t = member_map(name, table, counts, texts, space)
        mapped = table.mapped(t)
        for distance in distances:
            member_, t0 = Member(name, distance, space), time.perf_counter()
            k, source = kappa(member_)
            record = fit(prepare(mapped.host, couples, n_max, distance=distance, checked=True), "median", k,
                         kappa_source=source, distance=distance, **options)
            yield member_, t, record, time.perf_counter() - t0


def choose(validation_errors: dict, order=None) -> tuple[str, float]:
    """The member key of the lowest validation split error among ``validation_errors`` {key:
    error}, ties to the earlier key of ``order`` (default :func:`keys`: the words' members first),
    and that error."""
    rank = {k: i for i, k in enumerate(keys() if order is None else order)}
    key = min(validation_errors, key=lambda k: (validation_errors[k], rank.get(k, len(rank))))
    return key, float(validation_errors[key])
