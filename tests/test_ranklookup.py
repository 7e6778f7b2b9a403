"""repro.words.ranklookup.RankLookup: the chunk lookup against a plain dict, on awkward words."""

import numpy as np
import pytest

from repro.words import numbakernels, ranklookup
from repro.words.ranklookup import KEY_BYTES, RankLookup


@pytest.fixture(autouse=True, params=["0", "1"], ids=["numpy", "compiled"])
def probe_path(request, monkeypatch):
    """Every test on the NumPy probe and on the compiled one (:mod:`repro.words.numbakernels`; the NumPy
    one again where numba is not installed)."""
    monkeypatch.setenv(numbakernels.ENV, request.param)
    return request.param


def fresh(word: str) -> str:
    """An equal string that is a different object (as tokens read from a file are)."""
    return word.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def awkward_words(rng, n: int = 3000) -> list[str]:
    letters = list("abcdefghijklmnopqrstuvwxyz") + ["é", "ß", "日", "本", "😀", "\u0301"]
    words = {"".join(rng.choice(letters, size=rng.integers(1, 25))) for _ in range(n)}
    words |= {"x" * KEY_BYTES, "y" * (KEY_BYTES + 1), "é" * (KEY_BYTES // 2), "é" * (KEY_BYTES // 2) + "z",
              "prefixprefixpref", "prefixprefixprefix-longer", "\ud800lone", "a"}
    return sorted(words)


def expected(lookup: dict, texts, sentinel: int) -> np.ndarray:
    return np.array([lookup.get(t, sentinel) for text in texts for t in text], dtype=np.int32)


@pytest.fixture
def vocabulary():
    rng = np.random.default_rng(0)
    words = awkward_words(rng)
    rank = rng.permutation(len(words))
    return words, rank, dict(zip(words, rank.tolist()))


def sample_texts(rng, words, n_texts=400):
    unknown = ["", "b" * 40, "prefixprefixpre", "prefixprefixprefix", "x" * (KEY_BYTES - 1), "X", "é" * 9,
               "\ud801", "日本語のテキスト", "y" * KEY_BYTES]
    known = [fresh(w) for w in words]

    def token():
        return unknown[rng.integers(len(unknown))] if rng.random() < 0.3 else known[rng.integers(len(known))]

    return [[token() for _ in range(rng.integers(0, 30))] for _ in range(n_texts)]


def test_chunk_lookup_equals_the_dict(vocabulary):
    words, rank, plain = vocabulary
    lookup = RankLookup(words, rank)
    texts = sample_texts(np.random.default_rng(1), words)
    got = lookup.ranks(texts)
    want = expected(plain, texts, len(words))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int32 and (want == len(words)).sum() > 100 and (want < len(words)).sum() > 1000
    assert lookup["prefixprefixpref"] == plain["prefixprefixpref"] and lookup["nope"] == len(words)


def test_every_probe_chain_is_walked(vocabulary, monkeypatch):
    """All keys at one home slot: one chain of 3,000; hits and misses still exact. The NumPy
    probe's (the compiled one hashes by itself: its chains, tests/test_numbakernels.py)."""
    monkeypatch.setenv(numbakernels.ENV, "0")
    monkeypatch.setattr(ranklookup, "_home", lambda lo, hi, bits: np.zeros(lo.shape, np.intp))
    words, rank, plain = vocabulary
    lookup = RankLookup(words, rank)
    texts = sample_texts(np.random.default_rng(2), words, n_texts=50)
    np.testing.assert_array_equal(lookup.ranks(texts), expected(plain, texts, len(words)))


def test_the_most_frequent_word_is_found_at_home(vocabulary):
    words, rank, _ = vocabulary
    lookup = RankLookup(words, rank)
    slots = lookup._slots
    top = int(np.argmax(rank))  # the highest rank: lowest idf, the most frequent word
    key = np.frombuffer(words[top].encode().ljust(KEY_BYTES, b"\0"), "<u8").astype(np.uint64)
    home = int(ranklookup._home(key[:1], key[1:], lookup._bits)[0])
    assert slots[home, 2] == rank[top]
    assert (slots[:, 0] != 0).sum() == sum(0 < len(w.encode("utf-8", "surrogatepass")) <= KEY_BYTES for w in words)


def test_tokens_the_buffer_cannot_hold_take_the_dict_path(vocabulary):
    words, rank, plain = vocabulary
    lookup = RankLookup(words + ["nul\0word"], np.append(rank, len(words)))
    texts = [["a", "nul\0word", "nul"], [fresh(words[5])]]
    np.testing.assert_array_equal(lookup.ranks(texts), [plain["a"], len(words), len(words) + 1, plain[words[5]]])
    assert lookup.ranks([["a", 7, None]]).tolist() == [plain["a"], len(words) + 1, len(words) + 1]
    with pytest.raises(TypeError):
        lookup.ranks([["a", ["not", "hashable"]]])


def test_empty_input_and_empty_vocabulary():
    lookup = RankLookup(["b", "a"], [1, 0])
    assert lookup.ranks([]).shape == (0,) and lookup.ranks([[], []]).shape == (0,)
    np.testing.assert_array_equal(lookup.ranks([[], ["a", "b", "c"], []]), [0, 1, 2])
    nothing = RankLookup([], np.zeros(0, np.int64))
    np.testing.assert_array_equal(nothing.ranks([["a", ""]]), [0, 0])
    with pytest.raises(ValueError, match="rank"):
        RankLookup(["a"], [0, 1])


def test_the_table_is_deterministic(vocabulary):
    words, rank, _ = vocabulary
    assert RankLookup(words, rank)._slots.tobytes() == RankLookup(list(words), rank.copy())._slots.tobytes()


def test_mostly_short_tokens_and_empty_texts_equal_the_dict(vocabulary):
    """Tokens of at most 8 bytes with a few longer ones (the keys' second half read for those
    only) and empty texts between them (each text's tokens are joined, then the texts)."""
    words, rank, plain = vocabulary
    words = words + [f"w{i}" for i in range(500)]
    rank = np.random.default_rng(2).permutation(len(words))
    plain = dict(zip(words, rank.tolist()))
    lookup = RankLookup(words, rank)
    rng = np.random.default_rng(3)
    long_words = [w for w in words if len(w.encode("utf-8", "surrogatepass")) > 8]
    texts = [[fresh(f"w{rng.integers(600)}") if rng.random() < 0.95 else fresh(long_words[rng.integers(len(long_words))])
              for _ in range(rng.integers(0, 12))] for _ in range(500)]
    flat = [t for text in texts for t in text]
    assert sum(not text for text in texts) > 10 and 0 < sum(len(t.encode("utf-8", "surrogatepass")) > 8 for t in flat) \
        < len(flat) // 4  # the branch that reads the second half of the few longer keys only
    np.testing.assert_array_equal(lookup.ranks(texts), expected(plain, texts, len(words)))


def test_table_bits_keep_the_load_at_an_eighth_up_to_the_cap():
    for keys in (1, 7_800, 200_000, 400_000, 2_200_000):
        bits = ranklookup.table_bits(keys)
        assert keys <= 2 ** bits / 2  # never over half full
        if 8 * keys <= 2 ** ranklookup.SPARSE_BITS:
            assert keys <= 2 ** bits / 8 and 2 ** bits / 16 < max(keys, 2)  # at most an eighth, the least such
        else:
            assert bits == max(ranklookup.SPARSE_BITS, int(np.ceil(np.log2(2 * keys))))
    assert ranklookup.table_bits(7_800) == 16 and ranklookup.table_bits(2_200_000) == 23
