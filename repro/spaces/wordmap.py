"""The one registry of named word maps: fixed maps of the word vectors applied before any row averages them (not in the paper).

Issue 23's model is the paper's text vector (eq. 3) on mapped word vectors,

    t = (1/n) sum_j z_j s(w_j) (e_(j) - mu) P

with z the learned weights per idf rank, s a fixed weight per word and P, mu a fixed linear map.
Since s(w) (e_w - mu) P depends on the word only, the map is applied once to the embedding table
(rows s(w) (e_w - mu) @ P, a :class:`repro.spaces.transforms.Transform`), and Algorithm 1, the kappa
search, every data form and the encoding kernel run unchanged on the mapped table: t stays linear
in the weights, so every distance stays a quadratic form in them.

A map is a named recipe (:class:`WordMap`, registered in :data:`MAPS`) made of optional parts,
p(w) = count(w) / sum of counts (:func:`repro.spaces.transforms.probabilities`):

* a **word weighting** s(w) of :data:`WEIGHTS`: ``sif``, a / (a + p(w)), a = :data:`SIF_A` (Arora,
  Liang and Ma, 2017); ``usif``, a / (a/2 + p(w)) with a derived from V and the mean text length
  (Ethayarajh, 2018);
* a **whitening** (mu, P) of :data:`WHITENINGS` (Yokoi, Bao, Kurita and Shimodaira, NeurIPS 2024,
  :func:`repro.spaces.transforms.zipf_whitening`): ``centre``, mu = sum_w p(w) e_w and P the identity;
  ``zipf``, mu as above and P = C^(-1/2), C = sum_w p(w) (e_w - mu)(e_w - mu)^T; ``uwhiten``, the
  same with p uniform (1/V);
* ``word_components`` = k: the top k right singular vectors c of the (not centred) means of the
  distinct training texts' vectors under the map so far, removed from every word vector,
  P <- P (I - sum_k c_k c_k^T) (SIF's common component; since t' = t (I - c c^T) for any weights,
  it equals removing the component from the text vectors, with the weights learned with it in place).

What a recipe needs (:attr:`WordMap.needs`): ``counts`` (p(w): a corpus's word counts,
:attr:`repro.words.docfreq.DocFreq.counts`, or ``frequencies="wordfreq:<lang>"``, :mod:`repro.words.wordfrequencies`),
``length`` (uSIF's mean text length) and ``texts`` (the common components' training texts).

Everything that names or decides a map reads this module: the learned family's members
(:mod:`repro.evaluate.family`, the entries with ``family=True``, in registry order), the peers' grid of
weightings x whitenings (:mod:`repro.evaluate.peerfamily`), the STS harness, ``experiments.ship_weights``
(:meth:`WordMap.options`, the Encoder options that reproduce a map exactly), the command line's
choices (:mod:`repro.commands.options`) and the :class:`repro.encode.encoder.Encoder`'s options
(:func:`check_options`). A new map is one entry of :data:`MAPS` (:func:`register`), a new part
one entry of :data:`WEIGHTS` or :data:`WHITENINGS`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from repro.core import baselines
from repro.spaces import transforms
from repro.checks import check_table, check_texts
from repro.spaces.components import fit_components
from repro.spaces.transforms import IDENTITY, Transform

SIF_A = 1e-3
"""SIF's a (Arora et al. 2017 recommend 1e-4 to 1e-3; fse's default, and the STS harness's)."""
NEEDS = ("counts", "length", "texts")
"""What a map may need: word counts (p(w)), a mean text length (uSIF), training texts (components)."""


class Part(NamedTuple):
    """A part of a word map: a word weighting (``make(counts, length, a)`` -> (V,) s(w)) or a
    whitening (``make(table, counts)`` -> the Transform's shift and matrix)."""

    label: str  # the reader's adjective: "SIF-weighted", "Zipfian-whitened"
    needs: tuple  # of NEEDS
    parts: tuple  # the Transform's parts it fills: "scale", "shift", "matrix"
    help: str  # the command line's phrase
    make: Callable


WEIGHTS = {
    "sif": Part("SIF-weighted", ("counts",), ("scale",), "sif, a/(a + p(w)) with a = 1e-3",
                lambda counts, length, a: transforms.sif_weights(counts, a)),
    "usif": Part("uSIF-weighted", ("counts", "length"), ("scale",),
                 "usif, Ethayarajh's a/(a/2 + p(w))",
                 lambda counts, length, a: transforms.usif_weights(counts, float(length))),
}
"""The word weightings s(w), by name."""
WHITENINGS = {
    "centre": Part("centred", ("counts",), ("shift",), "centre, subtract the p(w)-weighted mean",
                   lambda table, counts: transforms.zipf_whitening(table, transforms.probabilities(counts), "centre")),
    "zipf": Part("Zipfian-whitened", ("counts",), ("shift", "matrix"),
                 "zipf, Zipfian whitening C^(-1/2)(e - mean) (Yokoi et al. 2024)",
                 lambda table, counts: transforms.zipf_whitening(table, transforms.probabilities(counts), "whiten")),
    "uwhiten": Part("uniformly whitened", (), ("shift", "matrix"),
                    "uwhiten, the same with p(w) uniform (1/V)",
                    lambda table, counts: transforms.zipf_whitening(table, "uniform", "whiten")),
}
"""The whitenings (mu, P), by name."""


class WordMap(NamedTuple):
    """A named recipe of the registry: its label, its parts (None / 0: none) and whether it is a
    member of the learned family (:mod:`repro.evaluate.family`)."""

    label: str  # what the tables call the member's word vectors
    word_weights: str | None = None  # a name of WEIGHTS
    whiten: str | None = None  # a name of WHITENINGS
    word_components: int = 0  # common components removed from every word vector, fitted on texts
    family: bool = True

    @property
    def needs(self) -> frozenset:
        """What fitting the map needs, a subset of :data:`NEEDS`."""
        needs = set()
        if self.word_weights is not None:
            needs.update(WEIGHTS[self.word_weights].needs)
        if self.whiten is not None:
            needs.update(WHITENINGS[self.whiten].needs)
        if self.word_components:
            needs.add("texts")
        return frozenset(needs)

    @property
    def parts(self) -> set:
        """The parts of :class:`repro.spaces.transforms.Transform` that the map has."""
        parts = set(WEIGHTS[self.word_weights].parts) if self.word_weights is not None else set()
        if self.whiten is not None:
            parts.update(WHITENINGS[self.whiten].parts)
        return parts | ({"matrix"} if self.word_components else set())

    def options(self) -> dict:
        """The :class:`repro.encode.encoder.Encoder` options that make this map (``word_components``
        only where it removes some, so that the options of every other map read as before)."""
        out = {"word_weights": self.word_weights, "whiten": self.whiten}
        return {**out, "word_components": self.word_components} if self.word_components else out


def check_options(word_weights, whiten, components, frequencies: str, word_components=0) -> tuple:
    """(word_weights, whiten, components, frequencies, word_components) checked; ValueError naming
    the argument."""
    from repro.words.wordfrequencies import parse_source

    if word_weights is not None and word_weights not in WEIGHTS:
        raise ValueError(f"word_weights: expected None or one of {', '.join(WEIGHTS)}, got {word_weights!r}")
    if whiten is not None and whiten not in WHITENINGS:
        raise ValueError(f"whiten: expected None or one of {', '.join(WHITENINGS)}, got {whiten!r}")
    for name, k in (("components", components), ("word_components", word_components)):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"{name}: expected a whole number >= 0 of common components, got {k!r}")
    parse_source(frequencies)  # an InputError naming frequencies
    return word_weights, whiten, int(components), frequencies, int(word_components)


MAPS: dict[str, WordMap] = {}
"""The registry: name -> :class:`WordMap`, in the family table's order."""


def register(name: str, m: WordMap) -> WordMap:
    """Add the map ``m`` under ``name`` (letters, digits and ``_``; not taken); ValueError naming
    the cause otherwise."""
    if not name or not name.replace("_", "").isalnum() or name in MAPS or name == "none":
        raise ValueError(f"word map: {name!r} is taken or not a name of letters, digits and _")
    check_options(m.word_weights, m.whiten, 0, "corpus", m.word_components)
    MAPS[name] = m
    return m


register("plain", WordMap("plain word vectors (the paper's)"))
register("centre", WordMap("centred word vectors", whiten="centre"))
register("sif", WordMap("SIF-weighted word vectors", word_weights="sif"))
register("usif", WordMap("uSIF-weighted word vectors", word_weights="usif"))
register("zipf", WordMap("Zipfian-whitened word vectors", whiten="zipf"))
register("uwhiten", WordMap("uniformly whitened word vectors", whiten="uwhiten", family=False))  # the peers' only
register("cc", WordMap("word vectors without their common component", word_components=1))
register("zipf_sif", WordMap("Zipfian-whitened, SIF-weighted word vectors", word_weights="sif", whiten="zipf"))


def family() -> tuple[str, ...]:
    """The names of the learned family's maps (``family=True``), in registry order."""
    return tuple(n for n, m in MAPS.items() if m.family)


def named(name: str) -> WordMap:
    """The registered map ``name``; ValueError naming the known ones otherwise."""
    if name not in MAPS:
        raise ValueError(f"word map: unknown {name!r}; expected one of {', '.join(MAPS)}")
    return MAPS[name]


def of(word_weights=None, whiten=None, word_components: int = 0) -> WordMap:
    """The registered map of these parts (the first), else an unnamed one made of them."""
    m = WordMap("", word_weights, whiten, int(word_components))
    return next((x for x in MAPS.values() if x[1:4] == m[1:4]), m)


def needs_counts(word_weights, whiten) -> bool:
    """Whether the map of these parts needs p(w), the word counts."""
    return "counts" in of(word_weights, whiten).needs


def parts(word_weights, whiten, word_components: int = 0) -> set:
    """The parts of :class:`repro.spaces.transforms.Transform` that the options' map has."""
    return of(word_weights, whiten, word_components).parts


def map_counts(words, counts, frequencies: str, space=None) -> np.ndarray:
    """(V,) int64 word counts of the vector ``words`` from ``frequencies``: ``"corpus"`` takes
    ``counts`` (the df source's, already on ``words``; None when the source has none: a df file
    written without counts, or a Vocabulary), ``"wordfreq:<lang>"`` the counts fse induces (for a
    token space ``space``, its counts of wordfreq's words, :mod:`repro.spaces.tokenspace`).
    :class:`repro.errors.InputError` naming ``frequencies`` when there are none."""
    from repro.errors import InputError
    from repro.words.wordfrequencies import parse_source, word_counts as source_counts

    if parse_source(frequencies)[0] == "corpus" and counts is None:
        raise InputError("frequencies", "word weights and whitening need word counts, and the df source holds "
                                        "none (a df file without counts, or a Vocabulary): pass corpus= (texts; "
                                        "--corpus) or frequencies='wordfreq:en' (--frequencies wordfreq:en)")
    return np.asarray(source_counts(frequencies, list(words), counts, space), np.int64)


def word_map(recipe, table, counts=None, *, length: float | None = None, texts=None, a: float = SIF_A) -> Transform:
    """The :class:`repro.spaces.transforms.Transform` of ``recipe`` (a name of :data:`MAPS` or a
    :class:`WordMap`) for the (V, d) word vectors ``table`` (an array or a checked
    :class:`repro.evaluate.scoring.Table`): scale s, shift mu and matrix P (module docstring), from the
    (V,) ``counts`` in the same row order, uSIF's mean text ``length`` and the distinct training
    ``texts`` (tokens (N, W) rows of ``table``, lengths (N,)) where the recipe needs them; the
    identity for a map without parts."""
    m = named(recipe) if isinstance(recipe, str) else recipe
    if "counts" in m.needs and counts is None:
        raise ValueError("counts: this word map needs the word counts p(w) is made of")
    if "length" in m.needs and length is None:
        raise ValueError("usif_length: uSIF needs the mean text length (fit the encoder, give a corpus, "
                         "or usif_length=)")
    if "texts" in m.needs and texts is None:
        raise ValueError("texts: removing common components from the word vectors needs the training texts")
    host = getattr(table, "host", table)  # a checked repro.evaluate.scoring.Table's array, or the array itself
    scale = None if m.word_weights is None else WEIGHTS[m.word_weights].make(counts, length, a)
    t = IDENTITY if m.whiten is None else WHITENINGS[m.whiten].make(host, counts)
    t = Transform(shift=t.shift, matrix=t.matrix, scale=scale)
    if not m.word_components:
        return t
    if host is table:  # a checked Table's host is not scanned again
        host = check_table(host)
    tokens, lengths = check_texts(*texts, host.shape[0])
    means = baselines.mean_vectors(host if t.identity else transforms.apply(t, host), tokens, lengths)
    c = fit_components(means, m.word_components).vectors
    projection = np.eye(c.shape[1]) - sum(np.outer(v, v) for v in c)
    return t._replace(matrix=projection if t.matrix is None else t.matrix @ projection)
