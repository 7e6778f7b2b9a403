"""The vocabulary's idf ranks and word -> rank lookup cached beside the vectors (issue 35, item 2;
repro.words.cachedranks): the same bits as computing them, never a stale entry, a damaged entry computed again."""

from __future__ import annotations

import os

import numpy as np
import pytest

from repro.io import cachefolder, store
from repro.words import cachedranks, ranklookup, vocabulary
from repro.encode.encoder import Encoder
from repro.words.vocabulary import Vocabulary

# short words, words longer than the table's keys (16 bytes), non-ASCII words
WORDS = ([f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300)]
         + [f"averyveryverylongword{i}" for i in range(5)] + ["café", "naïve", "übergroßeswörterbuchwort"])
TOKENS = [["wab", "wac", "zzz"], ["averyveryverylongword3", "averyveryverylongword", "café"], [],
          ["übergroßeswörterbuchwort", "naïve", "waa", ""], ["averyveryverylongword3x"]]


@pytest.fixture(autouse=True)
def every_size(monkeypatch, cache_beside_the_vectors):
    monkeypatch.setattr(cachedranks, "MIN_WORDS", 0)


def df_of(seed: int, n: int = len(WORDS)) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 50, n)


def same(a: Vocabulary, b: Vocabulary) -> None:
    assert a.rank.dtype == b.rank.dtype == np.int64 and a.rank.tobytes() == b.rank.tobytes()
    assert np.asarray(a.lookup.state()[1]).tobytes() == np.asarray(b.lookup.state()[1]).tobytes()
    assert a.lookup.state()[2] == b.lookup.state()[2] and a.lookup.sentinel == b.lookup.sentinel == len(WORDS)
    assert a.lookup.ranks(TOKENS).tobytes() == b.lookup.ranks(TOKENS).tobytes()
    for order in ("word", "idf"):
        for x, y in zip(a.rows(TOKENS, order=order), b.rows(TOKENS, order=order)):
            assert x.tobytes() == y.tobytes()
    assert [b.lookup[w] for w in WORDS + ["zzz"]] == [a.lookup[w] for w in WORDS + ["zzz"]]
    assert b.index == a.index and len(b.lookup) == len(a.lookup) == len(WORDS)


def test_the_cached_ranks_and_lookup_are_the_computed_ones_bit_for_bit(tmp_path, monkeypatch, cache_entries, uncomputable):
    folder = str(tmp_path / "cache")
    fresh = Vocabulary(WORDS, df_of(1), 100)  # no cache
    first = Vocabulary(WORDS, df_of(1), 100, cache=folder)
    written = cache_entries(folder)
    assert len(written) == 2 and written[0].startswith("lookup-") and written[1].startswith("rank-")
    with monkeypatch.context() as m:
        uncomputable(m, (vocabulary, "idf_order_rank"), (ranklookup.RankLookup, "_build"))
        second = Vocabulary(WORDS, df_of(1), 100, cache=folder)
    assert isinstance(second.lookup.state()[1], np.memmap) and cache_entries(folder) == written
    # the hand-checked ranks: descending idf (ascending df), ties by the word
    df = df_of(1)
    want = sorted(range(len(WORDS)), key=lambda i: (df[i], WORDS[i]))
    assert [int(i) for i in np.argsort(second.rank)] == want
    for v in (first, second):
        same(fresh, v)


@pytest.mark.parametrize("what", ["df", "n_docs", "word", "order"])
def test_a_stale_entry_is_never_used(tmp_path, what, cache_entries):
    """Other df, another N, another word or the same words in another order give another key: the
    old entry is not read, and what is built is what computing gives."""
    folder = str(tmp_path / "cache")
    Vocabulary(WORDS, df_of(1), 100, cache=folder)
    words, df, n_docs = list(WORDS), df_of(1), 100
    if what == "df":
        df = df_of(2)
    elif what == "n_docs":
        n_docs = 101  # every idf moves: another key (the order may stay)
    elif what == "word":
        words[7] = "wzzz"
    else:
        words[3], words[4] = words[4], words[3]
    new = Vocabulary(words, df, n_docs, cache=folder)
    assert len([n for n in cache_entries(folder) if n.startswith("rank-")]) == 2
    want = Vocabulary(words, df, n_docs)
    assert new.rank.tobytes() == want.rank.tobytes()
    assert new.lookup.ranks(TOKENS).tobytes() == want.lookup.ranks(TOKENS).tobytes()
    assert [new.lookup[w] for w in words] == [want.lookup[w] for w in words]


def test_the_key_tells_words_with_nul_apart():
    idf = np.ones(2)
    assert cachedranks.key(["a\0b", "c"], idf) != cachedranks.key(["a", "b\0c"], idf)
    assert cachedranks.key(["ab", "c"], idf) != cachedranks.key(["a", "bc"], idf)
    assert cachedranks.key(["ab", "c"], idf) == cachedranks.key(["ab", "c"], idf.copy())


@pytest.mark.parametrize("part", ["lookup-", "rank-"])
def test_a_damaged_or_missing_entry_is_computed_again(tmp_path, monkeypatch, part, cache_entries, uncomputable):
    folder = str(tmp_path / "cache")
    want = Vocabulary(WORDS, df_of(1), 100)
    Vocabulary(WORDS, df_of(1), 100, cache=folder)
    path = os.path.join(folder, next(n for n in cache_entries(folder) if n.startswith(part)))
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    same(want, Vocabulary(WORDS, df_of(1), 100, cache=folder))
    os.remove(path)
    same(want, Vocabulary(WORDS, df_of(1), 100, cache=folder))
    with monkeypatch.context() as m:  # written whole again: read now
        uncomputable(m, (vocabulary, "idf_order_rank"), (ranklookup.RankLookup, "_build"))
        same(want, Vocabulary(WORDS, df_of(1), 100, cache=folder))


def test_repeated_words_are_refused_and_write_nothing(tmp_path, cache_entries):
    folder = str(tmp_path / "cache")
    with pytest.raises(ValueError, match="twice"):
        Vocabulary(WORDS + ["wab"], df_of(1, len(WORDS) + 1), 100, cache=folder)
    assert cache_entries(folder) == []


def test_small_vocabularies_are_not_cached(tmp_path, monkeypatch, cache_entries):
    monkeypatch.setattr(cachedranks, "MIN_WORDS", len(WORDS) + 1)
    folder = str(tmp_path / "cache")
    Vocabulary(WORDS, df_of(1), 100, cache=folder)
    assert cache_entries(folder) == []


def test_an_encoder_reads_its_vocabulary_from_beside_the_vectors(tmp_path, monkeypatch, cache_entries, uncomputable):
    """The default model's encoder: its ranks, lookup and outputs the same with and without the cache."""
    rng = np.random.default_rng(0)
    vec = str(tmp_path / "vec")
    store.save_vectors(vec, WORDS, rng.standard_normal((len(WORDS), 8)).astype(np.float32))
    df = str(tmp_path / "df.npz")
    counts = 1000 + rng.integers(0, 500, len(WORDS))
    store.save_word_df(df, WORDS, df_of(3), 100, counts=counts)
    texts = ["wab wac wad", "averyveryverylongword2 wbb", "wcc wcd wce averyveryverylongword4"]
    first = Encoder.pretrained(vec, df)
    assert len([n for n in cache_entries(vec + ".mapped") if n.startswith(("rank-", "lookup-"))]) == 2
    with monkeypatch.context() as m:
        uncomputable(m, (vocabulary, "idf_order_rank"), (ranklookup.RankLookup, "_build"))
        second = Encoder.pretrained(vec, df)
        got = second.transform(texts)
        scores = second.similarity(texts, texts[::-1])
    monkeypatch.setenv(cachefolder.ENV, "0")
    fresh = Encoder.pretrained(vec, df)
    assert second.vocabulary.rank.tobytes() == fresh.vocabulary.rank.tobytes()
    assert got.tobytes() == fresh.transform(texts).tobytes() == first.transform(texts).tobytes()
    assert scores.tobytes() == fresh.similarity(texts, texts[::-1]).tobytes()
