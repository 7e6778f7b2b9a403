"""The compiled lookup and sums (repro.words.numbakernels): the NumPy path's ranks and bits, by every route.

Each test compares the compiled loops with the NumPy and SciPy path (``REPRO_NUMBA=0``), or with
a Python dict and a hand-built sum; the child-process test compiles them for numba's generic
CPU. Skipped where numba is not installed (the extra ``fast``), except the dispatch tests."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from repro.encode import weightedsums
from repro.words import numbakernels, ranklookup
from repro.words.docfreq import DocFreq
from repro.encode.encoder import Encoder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_numba = pytest.mark.skipif(numbakernels.load() is None, reason="numba is not installed (the extra fast)")

#: Words at every key boundary: 1, 7, 8, 9, 15, 16, 17 bytes, multi-byte UTF-8, a long one, and a
#: 17-byte word whose first 16 bytes are another word.
ODD_WORDS = ["a", "bbbbbbb", "cccccccc", "ddddddddd", "e" * 15, "f" * 16, "f" * 17, "héllo", "wörd" * 5,
             "日本語", "x" * 40, "ff"]


def vocabulary(extra: int, seed: int = 0):
    words = ODD_WORDS + [f"w{i}" for i in range(extra)]
    rank = np.random.default_rng(seed).permutation(len(words))
    return words, rank


def token_lists(words, n: int, seed: int, longest: int = 50):
    """``n`` token lists of 0 to ``longest`` tokens: the words, unknown ones (one sharing a known
    word's first 16 bytes), and empty tokens."""
    rng = np.random.default_rng(seed)
    pool = list(words) + ["unknown", "f" * 18, "g" * 17, "", "ä" * 9]
    return [[pool[j] for j in rng.integers(0, len(pool), int(rng.integers(0, longest + 1)))] for _ in range(n)]


@needs_numba
@pytest.mark.parametrize("extra", [30, 5000])
def test_the_compiled_ranks_are_the_dicts(monkeypatch, extra):
    words, rank = vocabulary(extra)
    lookup = ranklookup.RankLookup(words, rank)
    texts = token_lists(words, 400, seed=extra)
    count = sum(map(len, texts))
    by_dict = np.array([lookup[t] for text in texts for t in text], np.int32)
    monkeypatch.setenv(numbakernels.ENV, "1")
    np.testing.assert_array_equal(lookup.ranks(texts, count), by_dict)
    assert (by_dict == lookup.sentinel).any() and (by_dict < lookup.sentinel).any()
    monkeypatch.setenv(numbakernels.ENV, "0")
    np.testing.assert_array_equal(lookup.ranks(texts, count), by_dict)


@needs_numba
def test_the_compiled_probe_walks_long_chains(monkeypatch):
    """A table filled to 3/4 (the smallest power of 2 above the keys): long probe chains, and every
    hit and miss still the dict's."""
    monkeypatch.setattr(ranklookup, "table_bits", lambda keys: int(np.ceil(np.log2(keys + 1))))
    words, rank = vocabulary(3050)
    lookup = ranklookup.RankLookup(words, rank)
    bits, slots, _ = lookup.state()
    assert (slots[:, 0] != 0).mean() > 0.7 and 1 << bits == len(slots)
    texts = token_lists(words, 300, seed=3) + [[f"miss{i}" for i in range(500)]]
    monkeypatch.setenv(numbakernels.ENV, "1")
    np.testing.assert_array_equal(lookup.ranks(texts), [lookup[t] for text in texts for t in text])


@needs_numba
def test_the_compiled_ranks_from_the_cached_read_only_table(monkeypatch, tmp_path):
    from repro.words import cachedranks

    words, rank = vocabulary(300)
    built = ranklookup.RankLookup(words, rank)
    bits, slots, other = built.state()
    np.save(tmp_path / "slots.npy", slots)
    held = np.load(tmp_path / "slots.npy", mmap_mode="r")  # as cachedranks reads it
    assert cachedranks is not None and not held.flags.writeable
    lookup = ranklookup.RankLookup.from_state(words, rank, bits, held, other)
    texts = token_lists(words, 200, seed=1)
    monkeypatch.setenv(numbakernels.ENV, "1")
    np.testing.assert_array_equal(lookup.ranks(texts), built.ranks(texts))


@needs_numba
def test_a_token_with_a_nul_or_not_a_string_takes_the_dict_path(monkeypatch):
    words, rank = vocabulary(10)
    lookup = ranklookup.RankLookup(words, rank)
    monkeypatch.setenv(numbakernels.ENV, "1")
    texts = [["a", "b\0c", "ff"], ["héllo"]]
    assert lookup.ranks(texts).tolist() == [lookup["a"], lookup.sentinel, lookup["ff"], lookup["héllo"]]
    assert lookup.ranks([["a", 3, "ff"]]).tolist() == [lookup["a"], lookup.sentinel, lookup["ff"]]


@needs_numba
def test_the_probe_refuses_a_buffer_with_another_number_of_tokens():
    k = numbakernels.load()
    lookup = ranklookup.RankLookup(["ab", "cd"], [1, 0])
    bits, slots, _ = lookup.state()

    def probe(data: bytes, count: int):
        out = np.empty(count, np.int32)
        odd = [np.empty(count, np.int64) for _ in range(3)]
        n = k.probe(np.frombuffer(data, np.uint8), count, slots, bits, ranklookup.KEY_BYTES, 2,
                    ranklookup._MIX, out, *odd)
        return n, out.tolist(), [o[:max(n, 0)].tolist() for o in odd]

    assert probe(b"ab\0cd\0zz", 3) == (0, [1, 0, 2], [[], [], []])
    assert probe(b"ab\0\0" + b"q" * 17, 3) == (2, [1, 2, 2], [[1, 2], [3, 4], [0, 17]])
    assert probe(b"ab\0cd", 3)[0] == -1  # fewer tokens
    assert probe(b"ab\0cd\0zz", 2)[0] == -1  # more tokens
    assert probe(b"", 1) == (1, [2], [[0], [0], [0]])  # one empty token


@needs_numba
def test_the_sorted_sums_are_the_row_order_products_bits():
    k = numbakernels.load()
    rng = np.random.default_rng(5)
    v, d = 50, 37
    table = np.zeros((v + 1, d), np.float32)
    table[:v] = rng.standard_normal((v, d)).astype(np.float32)
    coef = weightedsums.coefficient_table(rng.uniform(0.1, 3.0, 30).astype(np.float32), 90, precomputed=None)
    counts = rng.integers(0, 90, 200)  # over and under the insertion sort's limit, and empty texts
    flat = rng.integers(0, v + 1, int(counts.sum())).astype(np.int32)  # v: unknown
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    lengths = np.empty(len(counts), np.int32)
    most = k.known_counts(flat, offsets, v, lengths)
    want_lengths = np.array([(flat[a:b] < v).sum() for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(lengths, want_lengths)
    assert most == want_lengths.max() > numbakernels.INSERTION
    out = np.zeros((len(counts), d), np.float32)
    k.sorted_sums(flat, offsets, v, lengths, coef, table, out, int(counts.max()))
    ranks = np.full((len(counts), most), v, np.int32)
    for b, (a, e) in enumerate(zip(offsets[:-1], offsets[1:])):
        known = np.sort(flat[a:e][flat[a:e] < v])
        ranks[b, :known.size] = known
        # one text by hand, in float64: the weighted sum of its sorted rows
        if b == 3:
            n = known.size
            np.testing.assert_allclose(out[b], (coef[n, :n, None].astype(np.float64) * table[known]).sum(0),
                                       rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out, weightedsums.weighted_sums(ranks, lengths, coef, table))


@pytest.fixture
def encoder_and_texts():
    words, _ = vocabulary(3000)
    m = np.random.default_rng(2).standard_normal((len(words), 33)).astype(np.float32)
    texts = token_lists(words, 3000, seed=4) + [["a"] * 70, ["e" * 15] * 61 + ["nope"] * 9, [""]]
    enc = Encoder.pretrained((words, m), DocFreq.from_corpus(texts[:1000]), normalize=False, model="paper",
                             chunk=500)
    return enc, texts


@needs_numba
@pytest.mark.parametrize("workers", [1, 2])
def test_the_encoder_gives_the_same_bits_either_way(monkeypatch, encoder_and_texts, workers):
    enc, texts = encoder_and_texts
    enc.workers = workers
    got = {}
    for mode in "01":
        monkeypatch.setenv(numbakernels.ENV, mode)
        with pytest.warns(Warning):  # texts with no known word
            got[mode] = enc.transform(texts)
    assert got["0"].tobytes() == got["1"].tobytes()
    assert np.abs(got["1"]).sum(axis=1).min() == 0 and np.abs(got["1"][-3]).max() > 0  # empty texts; a long one


@needs_numba
def test_a_token_space_gives_the_same_bits_either_way(monkeypatch, tmp_path):
    pytest.importorskip("tokenizers")
    from tests.test_tokenspace import model2vec_folder

    folder, _ = model2vec_folder(tmp_path / "m2v", dim=9)
    texts = ["The cat sat.", "stocks fell", "the cat", "a cat sat on the cat", "fell"] * 40
    enc = Encoder(folder, corpus=texts, weights=np.linspace(2, 0.5, 30).astype(np.float32), normalize=False)
    got = {}
    for mode in "01":
        monkeypatch.setenv(numbakernels.ENV, mode)
        got[mode] = enc.transform(texts)
    assert got["0"].tobytes() == got["1"].tobytes() and np.abs(got["0"]).max() > 0


CHILD = """
import hashlib, sys, warnings
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
warnings.simplefilter("ignore")
from test_numbakernels import vocabulary, token_lists
import numpy as np
from repro.words.docfreq import DocFreq
from repro.encode.encoder import Encoder
words, _ = vocabulary(3000)
m = np.random.default_rng(2).standard_normal((len(words), 33)).astype(np.float32)
texts = token_lists(words, 3000, seed=4)
enc = Encoder.pretrained((words, m), DocFreq.from_corpus(texts[:1000]), normalize=False, model="paper", chunk=500)
from repro.words import numbakernels
assert numbakernels.loaded() is not None
print(hashlib.sha256(enc.transform(texts).tobytes()).hexdigest())
"""


@needs_numba
def test_the_bits_do_not_depend_on_the_cpu_numba_compiles_for(tmp_path):
    """The generic x86-64 (no AVX, no FMA) in a child with a cache of its own, against this CPU."""
    script = CHILD.format(root=ROOT, tests=os.path.join(ROOT, "tests"))
    hashes = []
    for cpu in ("generic", "host"):
        env = {**os.environ, numbakernels.ENV: "1", "NUMBA_CACHE_DIR": str(tmp_path / cpu), "JAX_PLATFORMS": "cpu"}
        if cpu == "generic":
            env["NUMBA_CPU_NAME"] = "generic"
        else:
            env.pop("NUMBA_CPU_NAME", None)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        hashes.append(done.stdout.split()[-1])
    assert hashes[0] == hashes[1]
    # and the NumPy path's bits, in this process
    words, _ = vocabulary(3000)
    m = np.random.default_rng(2).standard_normal((len(words), 33)).astype(np.float32)
    texts = token_lists(words, 3000, seed=4)
    enc = Encoder.pretrained((words, m), DocFreq.from_corpus(texts[:1000]), normalize=False, model="paper", chunk=500)
    old = os.environ.get(numbakernels.ENV)
    try:
        os.environ[numbakernels.ENV] = "0"
        with pytest.warns(Warning):
            here = hashlib.sha256(enc.transform(texts).tobytes()).hexdigest()
    finally:
        os.environ.pop(numbakernels.ENV) if old is None else os.environ.__setitem__(numbakernels.ENV, old)
    assert hashes[0] == here


# ---- when the compiled loops run ---------------------------------------------------------------


def test_the_compiled_loops_load_once_the_process_has_asked_for_enough_tokens(monkeypatch):
    monkeypatch.setattr(numbakernels, "_loaded", None)
    monkeypatch.setattr(numbakernels, "_asked", 0)
    monkeypatch.delenv(numbakernels.ENV, raising=False)
    half = numbakernels.MIN_TOKENS // 2
    assert numbakernels.kernels(half) is None and numbakernels.loaded() is None
    assert numbakernels.kernels(numbakernels.MIN_TOKENS - half - 1) is None  # one token short
    got = numbakernels.kernels(1)
    if numbakernels.load() is None:  # no numba: never
        assert got is None and numbakernels.loaded() is None
        return
    assert got is numbakernels.load() and numbakernels.loaded() is got
    assert numbakernels.kernels(1) is got  # loaded: used for any size
    monkeypatch.setenv(numbakernels.ENV, "0")
    assert numbakernels.kernels(10 ** 9) is None and numbakernels.loaded() is None
    monkeypatch.setattr(numbakernels, "_loaded", None)
    monkeypatch.setenv(numbakernels.ENV, "1")
    assert numbakernels.loaded() is not None  # from the first token


def test_a_bad_setting_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(numbakernels.ENV, "yes")
    for ask in (numbakernels.kernels, numbakernels.loaded):
        with pytest.raises(ValueError, match=r"REPRO_NUMBA='yes': give 0 .* 1 .* unset"):
            ask(1) if ask is numbakernels.kernels else ask()


def test_without_numba_every_call_takes_the_numpy_path(monkeypatch, encoder_and_texts):
    monkeypatch.setattr(numbakernels, "_loaded", None)
    monkeypatch.setattr(numbakernels, "_missing", False)
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError
    monkeypatch.setenv(numbakernels.ENV, "1")
    assert numbakernels.kernels(10 ** 9) is None and numbakernels._missing
    enc, texts = encoder_and_texts
    with pytest.warns(Warning):
        got = enc.transform(texts)
    monkeypatch.setenv(numbakernels.ENV, "0")
    with pytest.warns(Warning):
        assert got.tobytes() == enc.transform(texts).tobytes()
