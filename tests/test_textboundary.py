"""The one text boundary: texts to rows (Vocabulary.rows), rows to couples (pairset.from_rows),
"a string or a token list" decided once (repro.words.text), and the couples' path through the modules."""

from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

from repro.words import text
from repro.words.docfreq import DocFreq
from repro.core.pairset import from_rows
from repro.words.vocabulary import Vocabulary

WORDS = ["the", "cat", "sat", "mat", "zebra"]
DF = [9, 3, 3, 2, 0]  # idf order: zebra 0, mat 1, cat 2, sat 3 (ties by word), the 4
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_tokens_decides_string_or_token_list_once():
    assert text.tokens("The CAT, 12!") == ["the", "cat", "0"]
    assert text.tokens(["As", "Is"]) == ["As", "Is"] and text.tokens(("a",)) == ("a",)
    assert text.tokens("Zürich", text.tokenise_unicode) == ["zürich"]
    with pytest.raises(ValueError, match=r"couples\[2\]: expected a string or a list of string tokens, got int"):
        text.token_lists(["a b", ["c"], 3], name="couples")
    lists = [["a"], ["b", "c"]]
    assert text.token_lists(lists) is lists  # the common case: no copy
    assert text.token_lists(["A b", ("c",)]) == [["a", "b"], ("c",)]


def test_rows_in_word_and_idf_order_by_hand():
    v = Vocabulary(WORDS, DF, 10)
    texts = [["the", "cat", "sat", "on", "the", "mat"], "Zebra!", ["nothing"]]
    rows, n = v.rows(texts)
    assert rows.tolist() == [[3, 1, 2, 0, 0], [4, 0, 0, 0, 0], [0, 0, 0, 0, 0]] and n.tolist() == [5, 1, 0]
    ranks, n2 = v.rows(texts, order="idf")
    assert ranks.tolist() == [[1, 2, 3, 4, 4], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]] and (n2 == n).all()
    assert ranks.dtype == rows.dtype == np.int32
    wide, _ = v.rows(texts, width=7, order="idf")
    assert wide.tolist()[0] == [1, 2, 3, 4, 4, 0, 0]
    with pytest.raises(ValueError, match="order: expected one of word, idf"):
        v.rows(texts, order="rank")
    assert v.word_ids([["zebra", "x"], ["the"]]).tolist() == [4, -1, 0]


def test_rows_equal_a_brute_force_sort_on_random_texts():
    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(60)]
    df = rng.integers(0, 20, 60)
    v = Vocabulary(words, df, 50)
    texts = [list(rng.choice(words + ["oov"], rng.integers(0, 25))) for _ in range(200)]
    rows, n = v.rows(texts)
    ranks, _ = v.rows(texts, order="idf")
    for t, row, rank_row, k in zip(texts, rows, ranks, n):
        ids = sorted((v.index[w] for w in t if w in v.index), key=lambda i: (-v.idf[i], words[i]))
        assert row[:k].tolist() == ids and not row[k:].any()
        assert rank_row[:k].tolist() == v.rank[ids].tolist()
    flat = np.asarray([v.index[w] for t in texts for w in t if w in v.index])
    np.testing.assert_array_equal(v.pack(flat, n, rows.shape[1]), rows)


def test_couples_by_hand_with_empty_texts_dropped():
    v = Vocabulary(WORDS, DF, 10)
    pairs, kept = v.couples(["the cat", "nothing here", "mat"], [["zebra", "sat"], ["cat"], []], [1, 0, 1],
                            drop_empty=True)
    assert kept.tolist() == [True, False, False]
    assert pairs.a.tolist() == [[1, 0]] and pairs.b.tolist() == [[4, 2]] and pairs.label.tolist() == [1]
    assert (pairs.len_a.tolist(), pairs.len_b.tolist()) == ([2], [2]) and pairs.label.dtype == np.int8
    every, kept = v.couples(["the cat", "nothing here"], ["zebra", "cat"], [1, 0], order="idf")
    assert kept.all() and every.a.tolist() == [[2, 4], [0, 0]] and every.len_a.tolist() == [2, 0]
    with pytest.raises(ValueError, match="2 texts a, 1 texts b"):
        v.couples(["a", "b"], ["c"], [1, 0])


def test_from_rows_picks_couples_out_of_rows():
    rows = np.array([[5, 0], [6, 7], [8, 0]], np.int64)
    got = from_rows(rows, np.array([1, 2, 1]), [2, 0], [1, 1], np.array([1, 0]))
    assert got.a.tolist() == [[8, 0], [5, 0]] and got.b.tolist() == [[6, 7], [6, 7]]
    assert got.len_a.tolist() == [1, 1] and got.len_b.tolist() == [2, 2] and got.label.tolist() == [1, 0]
    assert (got.a.dtype, got.len_a.dtype, got.label.dtype) == (np.int32, np.int32, np.int8)
    with pytest.raises(ValueError, match="2 texts a, 1 texts b"):
        from_rows(rows, np.array([1, 2, 1]), [2, 0], [1], np.array([1, 0]))


def test_translate_carries_df_and_counts_with_the_unknown_word_rule():
    freq = DocFreq.from_corpus(["a b b", "b c", ["c", "c"]])
    assert freq.words == ["a", "b", "c"] and freq.df.tolist() == [1, 2, 2] and freq.counts.tolist() == [1, 3, 3]
    other = freq.translate(["c", "z", "a"])
    assert other.df.tolist() == [2, 1, 1] and other.counts.tolist() == [3, 1, 1] and other.n_docs == 3
    np.testing.assert_allclose(other.idf(), np.log(3 / np.array([3.0, 2.0, 2.0])))
    assert DocFreq(["a"], np.array([4]), 9).translate(["a", "b"]).counts is None


def test_one_function_assembles_couples():
    """No ``PairSet(`` outside pairset.py (the class, ``take`` and :func:`from_rows`) but the file
    loader of store.py, which rebuilds a saved PairSet from its checked arrays."""
    found = []
    for folder in ("repro", "experiments", "benchmarks"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in files:
                if f.endswith(".py"):
                    path = os.path.join(dirpath, f)
                    src = open(path, encoding="utf-8").read()
                    found += [(os.path.relpath(path, ROOT), m.start()) for m in re.finditer(r"\bPairSet\(", src)]
    where = sorted({p for p, _ in found})
    assert where == [os.path.join("repro", "core", "pairset.py"), os.path.join("repro", "io", "store.py")], where
    src = open(os.path.join(ROOT, "repro", "core", "pairset.py"), encoding="utf-8").read()
    assert len(re.findall(r"\bPairSet\(", src)) == 3  # the class, take and from_rows
    assert sum(1 for p, _ in found if p.endswith("store.py")) == 1


def module_path(run, start) -> list:
    """The repro modules that the data of ``start`` passes through while ``run()`` runs: a call
    of a repro function enters the path when an argument holds that data (or a list of it), and
    what such a call returns is that data too. Consecutive calls in one module count once."""
    held, visits, frames = {id(x) for x in start}, [], set()

    def holds(v):
        if id(v) in held:
            return True
        return isinstance(v, (list, tuple)) and len(v) > 0 and id(v[0]) in held

    def follow(frame, event, arg):
        mod = frame.f_globals.get("__name__", "")
        if not mod.startswith("repro"):
            return
        if event == "call" and any(holds(v) for v in frame.f_locals.values()):
            frames.add(id(frame))
            if not visits or visits[-1] != mod:
                visits.append(mod)
        elif event == "return" and id(frame) in frames:
            held.add(id(arg))
            if isinstance(arg, tuple):
                held.update(id(x) for x in arg)
            elif isinstance(arg, list) and arg:
                held.add(id(arg[0]))

    sys.setprofile(follow)
    try:
        run()
    finally:
        sys.setprofile(None)
    return visits


def returns(visits: list) -> dict:
    """{module: how many times the path came back to it after leaving it}."""
    out = {}
    for i, m in enumerate(visits):
        if m in visits[:i]:
            out[m] = out.get(m, 0) + 1
    return out


def test_the_path_of_the_couples_of_encoder_fit():
    from repro.encode.encoder import Encoder

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    enc = Encoder((words, rng.normal(size=(40, 4)).astype(np.float32)), corpus=[" ".join(words[:i]) for i in range(1, 40)])
    couples = [(" ".join(rng.choice(words, 5)), list(rng.choice(words, 4))) for _ in range(30)]
    labels = np.arange(30) % 2
    got = []
    visits = module_path(lambda: got.append(enc.couples_to_pairs(couples, labels)), [couples, labels, *(t for c in couples for t in c)])
    assert got[0][0].size == 30
    # encoder -> word space (the couples checked) -> text (tokens, and the raw texts whose letters
    # the paper's rule drops, in one pass) -> vocabulary -> text (token_lists, the fast path) ->
    # ranklookup -> pairset: every module left at most once and come back to at most once
    assert visits == ["repro.encode.encoder", "repro.encode.wordspace", "repro.words.text", "repro.words.vocabulary", "repro.words.text",
                      "repro.words.ranklookup", "repro.core.pairset"], visits
    assert returns(visits) == {"repro.words.text": 1}, visits


def test_the_path_of_the_wikipedia_couples(tmp_path):
    from repro.data.wikipedia import wikipairs

    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(50)]
    v = Vocabulary(words, rng.integers(0, 30, 50), 40)
    lines = [f"art{i // 3}\t" + " ".join(rng.choice(words + ["oov"], 70)) for i in range(40)]
    (tmp_path / "p.tsv").write_text("\n".join(lines) + "\n")
    got = []
    path = str(tmp_path / "p.tsv")
    visits = module_path(lambda: got.append(wikipairs.build(path, v, "wiki20", 0, progress=False)), [path, v])
    assert got[0][0]["train"].size > 0
    # wikipairs -> vocabulary (word_ids) -> ranklookup -> wikipairs (the windows) -> vocabulary (pack)
    # -> text (pack_texts) -> couples -> dealing (whole articles dealt to the splits) -> couples (the
    # unrelated couples drawn) -> pairset (every split assembled): no module come back to more than once
    assert visits == ["repro.data.wikipedia.wikipairs", "repro.words.vocabulary", "repro.words.ranklookup",
                      "repro.data.wikipedia.wikipairs", "repro.words.vocabulary", "repro.words.text", "repro.data.couples",
                      "repro.core.clusters", "repro.data.couples", "repro.core.pairset"], visits
    assert max(returns(visits).values()) == 1, visits
