"""The peer family: the peers' own choices searched as widely as the learned family (not in the paper).

The learned family (:mod:`repro.evaluate.family`) picks, per column and metric, the best of its members on
the validation couples. So that no row of ours wins by a wider search alone, the peers get a
family of their own, chosen by the same rule on the same couples: every combination of

* a **word weighting** f(w) of :data:`WEIGHTINGS`: none (the mean), SIF's a / (a + p(w)) for each
  a of :data:`SIF_AS` (Arora et al. 2017), uSIF's a / (a/2 + p(w)) with its derived a
  (Ethayarajh 2018);
* a **word map** of :data:`MAPS` (Yokoi et al. 2024): none, centring on the p(w)-weighted mean,
  Zipfian whitening (p(w) from the corpus's counts), uniform whitening (p uniform);
* a number of **common components** removed (the top right singular vectors of the distinct
  training texts' vectors, not centred, each at scale 1, SIF's rule): :data:`COMPONENTS` in the
  tables, :data:`STS_COMPONENTS` on STS (fse's protocol goes up to 10).

A configuration's text vector is t = (1/n) sum_j f(w_j) P (e_(j) - mu) with the components
removed, the :class:`repro.evaluate.scoring.Encoding` of kind ``word`` with the map as its transform, so
the chosen configuration is scored by the one surface of every row (:func:`row_pass`, :func:`encoding`).

The search (:func:`search`) scores every configuration on the validation couples cheaply, by
linearity: t = (m_f - c_f mu) P with m_f = (1/n) sum_j f(w_j) e_(j) and c_f = (1/n) sum_j f(w_j),
so each word weighting's sums are made once (a sparse product in float64) and every map and
component count is a few dense operations on them; the components are the top eigenvectors of
the training vectors' Gram matrix (the same directions as the singular vectors). The search's
errors agree with the one surface's to float32 rounding; the chosen configuration is then scored
by :mod:`repro.evaluate.scoring` like every other row (experiments/score.py). Every function takes
the column it reads (:class:`repro.evaluate.scoring.Column`: the checked table, the couples, the
distinct training texts), so nothing is checked or made twice.

:func:`repro.evaluate.family.budgets` holds both families' sizes (the candidates each chooses among on
validation), so that neither can get a bigger search silently (tests/test_peerfamily.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from repro.evaluate import scoring
from repro.spaces import transforms, wordmap
from repro.core.textmetric import METRICS, check_metric, vector_scores

#: SIF's a tried (Arora et al. recommend 1e-4 to 1e-3; 1e-3 is fse's default).
SIF_AS = (1e-4, 1e-3, 1e-2)
#: Word weightings: (name, a) with a None where the weighting has no a (the mean, uSIF's derived
#: a): the mean and the registry's (:data:`repro.spaces.wordmap.WEIGHTS`), SIF's for each a of SIF_AS.
WEIGHTINGS = (("mean", None),) + tuple((n, a) for n in wordmap.WEIGHTS for a in (SIF_AS if n == "sif" else (None,)))
#: Word maps: none and the registry's whitenings (:data:`repro.spaces.wordmap.WHITENINGS`): centring on
#: the p(w)-weighted mean, Zipfian whitening, uniform whitening.
MAPS = ("none",) + tuple(wordmap.WHITENINGS)
#: Common components removed in Tables 1 and 2 (SIF's rule: the first, at scale 1).
COMPONENTS = (0, 1)
#: Common components removed on STS (fse's protocol removes up to 10).
STS_COMPONENTS = (0, 1, 2, 5, 10)
MAP_LABELS = {"none": "", **{n: p.label for n, p in wordmap.WHITENINGS.items()}}


class Config(NamedTuple):
    """One member of the peer family."""

    weighting: str  # "mean", "sif" or "usif"
    a: float | None  # SIF's a; None otherwise
    map: str  # one of MAPS
    components: int  # common components removed

    @property
    def key(self) -> str:
        """``<weighting>[-<a>]/<map>/<components>``, e.g. ``sif-0.0001/zipf/1``."""
        w = self.weighting if self.a is None else f"{self.weighting}-{self.a:g}"
        return f"{w}/{self.map}/{self.components}"

    @property
    def label(self) -> str:
        """A short reader's name: ``SIF (a = 1e-4), Zipfian-whitened, 1 component removed``."""
        w = {"mean": "mean", "usif": "uSIF"}.get(self.weighting) or f"SIF (a = {self.a:g})"
        parts = [w] + ([MAP_LABELS[self.map]] if self.map != "none" else [])
        if self.components:
            parts.append(f"{self.components} component{'s' if self.components > 1 else ''} removed")
        return ", ".join(parts)

    def as_dict(self) -> dict:
        return dict(self._asdict())


def grid(components=COMPONENTS) -> tuple[Config, ...]:
    """Every configuration: :data:`WEIGHTINGS` x :data:`MAPS` x ``components``, in that order."""
    return tuple(Config(w, a, m, int(k)) for w, a in WEIGHTINGS for m in MAPS for k in components)


def from_key(key: str) -> Config:
    """The :class:`Config` of a :attr:`Config.key`; ValueError naming the form otherwise."""
    try:
        w, m, k = key.split("/")
        name, _, a = w.partition("-")
        config = Config(name, float(a) if a else None, m, int(k))
    except ValueError:
        raise ValueError(f"peer configuration: expected <weighting>[-<a>]/<map>/<components>, got {key!r}") from None
    if (config.weighting, config.a) not in WEIGHTINGS or config.map not in MAPS or config.components < 0:
        raise ValueError(f"peer configuration: unknown {key!r}")
    return config


def word_weights(config: Config, counts, mean_length: float) -> np.ndarray:
    """(V,) f(w) of the configuration's word weighting (uSIF's a from V and ``mean_length``)."""
    if config.weighting == "mean":
        return np.ones(len(counts))
    return wordmap.WEIGHTS[config.weighting].make(counts, mean_length, config.a)


def whitening(name: str, table, counts) -> transforms.Transform:
    """The fixed map ``name`` of :data:`MAPS` of the (V, d) ``table`` under the corpus's ``counts``:
    the identity for ``none``, else the registry's whitening (:func:`repro.spaces.wordmap.word_map`)."""
    if name == "none":
        return transforms.IDENTITY
    if name not in MAPS:
        raise ValueError(f"map: expected one of {', '.join(MAPS)}, got {name!r}")
    return wordmap.word_map(wordmap.of(whiten=name), table, counts)


def row_pass(config: Config, column: scoring.Column, counts, maps: dict | None = None,
             metrics=METRICS) -> scoring.Pass:
    """The configuration as a :class:`repro.evaluate.scoring.Pass` over the ``column``'s couples: the
    encoding of kind ``word`` of its word weights (uSIF's length the mean of the column's distinct
    training texts) and its map (from ``maps`` when given), its number of common components (fitted
    by :meth:`repro.evaluate.scoring.Column.fit` on those texts, at scale 1; none: the encoding's
    own, none), scored under ``metrics``."""
    t = (maps or {}).get(config.map) or whitening(config.map, column.table.host, counts)
    enc = scoring.Encoding("word", word_weights(config, counts, float(np.mean(column.texts[1]))), transform=t)
    return scoring.Pass(enc, (config.components,) if config.components else None, tuple(metrics))


def encoding(config: Config, column: scoring.Column, counts, maps: dict | None = None) -> scoring.Encoding:
    """The configuration as the :class:`repro.evaluate.scoring.Encoding` every row is scored by: its word
    weights, its map (from ``maps`` when given) and its components fitted on the distinct texts of
    the ``column``'s training couples (:func:`row_pass`)."""
    p = row_pass(config, column, counts, maps)
    return p.encoding._replace(components=column.fit(p.encoding, p.components)[0]) if p.components else p.encoding


def _averager(tokens, lengths, vocab_size: int) -> sp.csr_matrix:
    """(N, V) sparse S with S[i, w] = (occurrences of w among the first n_i tokens of row i) / n_i."""
    tokens, lengths = np.asarray(tokens), np.asarray(lengths)
    live = np.arange(tokens.shape[1])[None, :] < lengths[:, None]
    rows = np.broadcast_to(np.arange(len(lengths))[:, None], tokens.shape)[live]
    vals = (1.0 / np.maximum(lengths, 1))[:, None].repeat(tokens.shape[1], 1)[live]
    s = sp.csr_matrix((vals, (rows, tokens[live])), shape=(len(lengths), vocab_size))
    s.sum_duplicates()
    return s


class _Space(NamedTuple):
    """A word weighting's sums of a set of texts: m (N, d) and c (N,), float64."""

    m: np.ndarray
    c: np.ndarray


def _sums(s: sp.csr_matrix, f: np.ndarray, table64: np.ndarray) -> _Space:
    sf = s.copy()
    sf.data = sf.data * f[sf.indices]
    return _Space(np.asarray(sf @ table64), np.asarray(sf.sum(axis=1)).ravel())


def _mapped(x: _Space, t: transforms.Transform) -> np.ndarray:
    """(N, d) float64 t = (m - c mu) P for the map ``t`` (no per-word scale)."""
    v = x.m if t.shift is None else x.m - x.c[:, None] * np.asarray(t.shift, np.float64)[None, :]
    return v if t.matrix is None else v @ np.asarray(t.matrix, np.float64)


def _top_directions(x: np.ndarray, k: int) -> np.ndarray:
    """(k, d) the top right singular vectors of ``x`` (N, d), from the eigenvectors of x^T x."""
    if k == 0:
        return np.zeros((0, x.shape[1]))
    lam, q = np.linalg.eigh(x.T @ x)
    return q[:, ::-1][:, :k].T


def _remove(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    return x if c.shape[0] == 0 else x - (x @ c.T) @ c


def word_maps(configs, column: scoring.Column, counts) -> dict:
    """{map name: its :func:`whitening`} of the ``column``'s word vectors for the maps of ``configs``,
    each made once."""
    return {m: whitening(m, column.table.host, counts) for m in dict.fromkeys(c.map for c in configs)}


def config_scores(column: scoring.Column, counts, configs=None, *, split: str = "validation", metrics=METRICS,
                  maps: dict | None = None):
    """Yield (config, metric, (P,) float64 scores of the ``column``'s ``split`` couples) for every
    configuration of ``configs`` (default :func:`grid`) and metric, by the linear shortcut of the
    module docstring (each word weighting's sums made once, every map and component count from
    them; the components from the column's distinct training texts); ``maps``: the
    :func:`word_maps` of ``configs`` when already made."""
    metrics = [check_metric(m) for m in metrics]
    configs = grid() if configs is None else tuple(configs)
    host = column.table.host
    table64 = host.astype(np.float64)
    v = host.shape[0]
    tokens, lengths = column.texts
    couples = column.splits[split]
    mean_length = float(np.mean(lengths))
    s_train = _averager(tokens, lengths, v)
    s_a = _averager(couples.a, couples.len_a, v)
    s_b = _averager(couples.b, couples.len_b, v)
    maps = maps or word_maps(configs, column, counts)
    for w in dict.fromkeys((c.weighting, c.a) for c in configs):
        mine = [c for c in configs if (c.weighting, c.a) == w]
        f = word_weights(mine[0], counts, mean_length)
        tr, a, b = (_sums(s, f, table64) for s in (s_train, s_a, s_b))
        for name in dict.fromkeys(c.map for c in mine):
            t = maps[name]
            ks = [c.components for c in mine if c.map == name]
            directions = _top_directions(_mapped(tr, t), max(ks))
            ta, tb = _mapped(a, t), _mapped(b, t)
            for k in ks:
                ra, rb = _remove(ta, directions[:k]), _remove(tb, directions[:k])
                for m in metrics:
                    yield Config(w[0], w[1], name, k), m, vector_scores(ra, rb, m)


def search(column: scoring.Column, counts, configs=None, *, split: str = "validation", metrics=METRICS,
           maps: dict | None = None) -> dict:
    """The validation split error of every configuration of ``configs`` (default :func:`grid`) under
    each of ``metrics`` on the ``column``'s ``split`` couples (:func:`config_scores`): {metric:
    {config key: error}}. The error is :func:`repro.core.metrics.split`'s on those couples (threshold
    and error both on them), as :func:`repro.evaluate.peers.select` and the learned family choose."""
    from repro.core import metrics as protocol

    out = {m: {} for m in metrics}
    labels = column.splits[split].label
    for config, m, s in config_scores(column, counts, configs, split=split, metrics=metrics, maps=maps):
        out[m][config.key] = float(protocol.split(s, labels, s, labels).error)
    return out


def from_peer(name: str, params: dict) -> Config | None:
    """The configuration of the family that is peer ``name`` of :mod:`repro.evaluate.peers` with the entry
    ``params`` of its grid (:data:`repro.evaluate.peers.GRIDS`), or None where the family has none (uSIF's
    own five components, centring on the uniform mean, the learned weights)."""
    k = int(params.get("components", 0))
    if name == "sif":
        return Config("sif", float(params["a"]), "none", k)
    if name == "zipf":
        return Config("mean", None, "centre" if params["mode"] == "centre" else "zipf", k)
    if name == "uwhiten" and params["mode"] == "whiten":
        return Config("mean", None, "uwhiten", k)
    if name == "usif" and k in COMPONENTS:
        return Config("usif", None, "none", k)
    return None


def choose(errors: dict, configs=None) -> tuple[Config, float]:
    """The configuration of the lowest error among ``errors`` {key: error} (one metric's, from
    :func:`search`); ties go to the earlier configuration of ``configs`` (default :func:`grid`)."""
    order = {c.key: i for i, c in enumerate(grid() if configs is None else configs)}
    key = min(errors, key=lambda k: (errors[k], order.get(k, len(order))))
    return from_key(key), float(errors[key])
