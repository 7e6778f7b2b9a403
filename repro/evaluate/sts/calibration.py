"""fse 1.0.0's published STS-B table run through this library: the check that the STS harness reproduces a published table (not in the paper).

fse (https://github.com/oborchers/Fast_Sentence_Embeddings, README and
``notebooks/STS-Benchmarks.ipynb``) reports for GloVe 6B 50d on STS-B test, Pearson x 100: mean
37.47, SIF with 10 components removed 64.11, uSIF (length 11) 62.06 (:data:`PUBLISHED`). Its
protocol (:func:`calibration`): the raw GloVe vectors (not unit length), the whole GloVe
vocabulary; frequencies from wordfreq ``en`` as fse's ``lang_freq`` induces them
(:mod:`repro.words.wordfrequencies`); its tokens (:func:`repro.words.text.fse_tokenise`); SIF with a = 1e-3 and 10
components removed at scale 1, uSIF with length 11 and its 5 components removed at fse's squared
shares; the components fitted on the very sentences scored (the test sentences:
**transductive**, unlike the STS tables of :mod:`repro.evaluate.sts.protocol`); cosine, Pearson on test.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from repro.evaluate import peers, scoring
from repro.words import wordfrequencies
from repro.spaces.components import fit_components
from repro.core.metrics import pearson
from repro.core.pairset import from_rows
from repro.words.text import fse_tokenise

#: fse 1.0.0's README, GloVe 6B 50d (``glove-wiki-gigaword-50``) on STS-B test, Pearson x 100.
PUBLISHED = {"mean": 37.47, "sif": 64.11, "usif": 62.06}


def _index_rows(index: dict, texts: list) -> tuple[np.ndarray, np.ndarray]:
    """Token lists to (N, W) int32 rows of their known words in order (0-padded) and (N,) lengths."""
    ids = [[index[t] for t in toks if t in index] for toks in texts]
    lengths = np.array([len(i) for i in ids], np.int32)
    rows = np.zeros((len(ids), max(int(lengths.max()), 1)), np.int32)
    for r, i in enumerate(ids):
        rows[r, :len(i)] = i
    return rows, lengths


def calibration(test: list, words: list, matrix: np.ndarray, source: str = "wordfreq:en") -> dict:
    """fse's README table for these vectors through this library (the module's protocol): per row
    of :data:`PUBLISHED` its Pearson and Spearman x 100 on the STS-B pairs ``test``, fse's published
    value and the difference; ``_meta``: the frequencies, the empty sentences, the vocabulary and
    the sentences scored."""
    index = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    table = scoring.Table(np.asarray(matrix, np.float32))
    counts = wordfrequencies.word_counts(source, words)
    a, la = _index_rows(index, [fse_tokenise(p.a) for p in test])
    b, lb = _index_rows(index, [fse_tokenise(p.b) for p in test])
    width = max(a.shape[1], b.shape[1])
    a, b = (np.pad(x, ((0, 0), (0, width - x.shape[1]))) for x in (a, b))
    gold = np.array([p.score for p in test])
    scored = np.concatenate([a, b]), np.concatenate([la, lb])  # every sentence scored, repeats included
    n = len(test)
    pairs = from_rows(*scored, np.arange(n), n + np.arange(n), np.zeros(n, np.int8))
    setups = {"mean": (scoring.Encoding("word", np.ones(len(words))), 0, "one"),
              "sif": (scoring.Encoding("word", peers.sif_weights(counts, 1e-3)), 10, "one"),
              "usif": (scoring.Encoding("word", peers.usif_weights(counts, 11)), 5, "share_squared")}
    out = {}
    for name, (enc, k, scales) in setups.items():
        if k:
            enc = enc._replace(components=fit_components(scoring.text_vectors(enc, table, *scored), k, scales))
        s = scoring.scores(enc, table, pairs, "cosine")
        r = pearson(s, gold)
        out[name] = {"pearson": r, "spearman": 100 * float(stats.spearmanr(s, gold)[0]),
                     "published": PUBLISHED[name], "difference": r - PUBLISHED[name], "components": k,
                     "component_scales": scales}
    out["_meta"] = {"frequencies": source, "empty_sentences": int((la == 0).sum() + (lb == 0).sum()),
                    "vocabulary": len(words), "sentences": int(2 * len(test))}
    return out
