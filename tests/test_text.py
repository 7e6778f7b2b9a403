"""repro.words.text and repro.words.vocabulary: idf order with its tie rule, texts (raw or tokens) to padded rows."""

from __future__ import annotations

import numpy as np
import pytest

from repro.words.docfreq import idf
from repro.words.text import pack_texts, tokenise
from repro.words.vocabulary import Vocabulary, idf_order_rank

WORDS = ["the", "cat", "sat", "mat", "zebra"]
DF = [9, 3, 3, 2, 0]  # idf order: zebra, mat, then cat and sat tied (cat < sat), the


def test_rank_follows_descending_idf_with_word_tie_break():
    assert idf_order_rank(WORDS, idf(DF, 10)).tolist() == [4, 2, 3, 1, 0]


def test_rows_from_tokens_and_from_raw_text_agree():
    v = Vocabulary(WORDS, DF, 10)
    rows, lengths = v.rows([["the", "cat", "sat", "on", "the", "mat"], ["zebra"], ["nothing", "known"]])
    # ids: the 0, cat 1, sat 2, mat 3, zebra 4; OOV "on" dropped and not counted
    assert rows.tolist() == [[3, 1, 2, 0, 0], [4, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    assert lengths.tolist() == [5, 1, 0] and rows.dtype == np.int32
    raw, raw_len = v.rows(["The CAT sat on the mat!", "Zebra.", "nothing known"])
    assert (raw == rows).all() and (raw_len == lengths).all()
    wide, _ = v.rows([["zebra"]], width=3)
    assert wide.tolist() == [[4, 0, 0]]
    with pytest.raises(ValueError, match="width 2"):
        v.rows([["the", "cat", "mat"]], width=2)


def test_tokenise_uses_the_paper_rules():
    assert tokenise("In 1,234.5 cases, Café-au-lait") == ["in", "0", "cases", "caf", "au", "lait"]


def test_pack_texts_matches_one_by_one_sorting():
    rng = np.random.default_rng(0)
    rank = rng.permutation(50)
    lengths = rng.integers(0, 8, size=30)
    flat = rng.integers(0, 50, size=int(lengths.sum()))
    packed = pack_texts(flat, lengths, rank, 8)
    start = 0
    for row, n in zip(packed, lengths):
        text = flat[start:start + n]
        start += n
        assert row[:n].tolist() == sorted(text.tolist(), key=lambda i: rank[i])
        assert (row[n:] == 0).all()


def test_vocabulary_checks_and_fingerprint(tmp_path):
    with pytest.raises(ValueError, match="df"):
        Vocabulary(WORDS, DF[:-1], 10)
    with pytest.raises(ValueError, match="twice"):
        Vocabulary(["a", "a"], [1, 1], 3)
    assert Vocabulary(WORDS, DF, 10).fingerprint() == Vocabulary(WORDS, [0] * 5, 10).fingerprint()
    assert Vocabulary(WORDS, DF, 10).fingerprint() != Vocabulary(WORDS[::-1], DF, 10).fingerprint()
