"""The WordLlama rows of Tables 1 and 2 (repro/evaluate/tokentables.py, experiments/tokenrows.py): couples read
as text on a token space the test builds, the members' keys and n_max, and how the tables choose the
families' rows among the word and the token candidates. The stages end to end: tests/test_table1_chain.py."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tokenizers")

from experiments import tokenrows  # noqa: E402
from repro import settings  # noqa: E402
from repro.core import pairset
from repro.evaluate import family, tokentables
from repro.spaces import tokenspace
from tests.tinytokens import token_folder  # noqa: E402

WORDS = ["river", "rivers", "bridge", "bridges", "storm", "storms", "market", "the"]
TEXTS = ["the river and the bridge", "storms over the rivers", "bridges of the market", "the storm market river"] * 5


def test_couples_are_the_word_texts_split_by_the_tokenizer_and_sorted_by_token_idf(tmp_path):
    folder = token_folder(tmp_path / "space", TEXTS, vocab_size=40)
    names, matrix, space = tokentables.load(folder)
    freq = tokentables.corpus_docfreq(space, TEXTS)
    vocab = tokentables.vocabulary(space, freq.df, freq.n_docs)
    rows = np.array([[0, 2, 5, 0], [1, 3, 6, 7], [4, 0, 0, 0], [7, 6, 1, 0]])
    lengths = np.array([3, 4, 1, 3])
    pairs = pairset.from_rows(rows, lengths, [0, 2], [1, 3], [1, 0])
    got = tokentables.couples(vocab, pairs, WORDS)
    assert got.size == 2 and list(got.label) == [1, 0]
    for side, want in ((got.a, (0, 2)), (got.b, (1, 3))):
        for k, text in enumerate(want):
            plain = space.tokenizer.encode(" ".join(WORDS[w] for w in rows[text][:lengths[text]]),
                                           add_special_tokens=False).ids
            n = (got.len_a if side is got.a else got.len_b)[k]
            assert sorted(side[k][:n].tolist()) == sorted(i for i in plain if i not in space.unknown)
            assert np.all(np.diff(vocab.rank[side[k][:n]]) >= 0)  # descending token idf, ties by name
    assert got.len_a.sum() + got.len_b.sum() > lengths.sum()  # words split into several tokens
    # df over the corpus's texts, one document each; a token no text holds: df 1, count 1
    assert freq.n_docs == len(TEXTS)
    the = space.tokenizer.token_to_id("the")
    assert freq.df[the] == len(TEXTS) and freq.counts[the] == sum(t.split().count("the") for t in TEXTS)


def test_token_n_max_gives_as_many_weights_per_word():
    assert tokentables.token_n_max(30, [10, 20], [14, 25]) == 39
    assert tokentables.token_n_max(20, [20, 20], [25, 25]) == 25  # exact: not rounded up past it
    assert tokentables.token_n_max(20, [20, 20], [25, 26]) == 26
    with pytest.raises(ValueError, match="no words"):
        tokentables.token_n_max(20, [0], [3])


def test_member_keys_of_both_families():
    keys = family.keys()
    assert keys[:len(family.members())] == [m.key for m in family.members()]
    assert len(keys) == len(set(keys)) == len(family.members()) + len(family.TOKEN_MAPS) * len(family.DISTANCES)
    assert all(family.member(k).key == k for k in keys)
    assert family.member("wordllama_zipf-cosine").label == \
        "on WordLlama's Zipfian-whitened token vectors under 1 - cos"
    assert family.short_name("wordllama_plain-euclidean") == "WordLlama plain"
    assert family.short_name("zipf-cosine") == "zipf"
    for bad in ("wordllama_cc-euclidean", "wordllama_plain-manhattan"):
        with pytest.raises(ValueError, match="token family member"):
            family.member(bad)
    assert tokentables.peer_method(tokentables.PEER_CONFIGS[1]) == "wordllama_peer:mean_zipf_0"
    assert tokentables.ROW_CONFIG.key == "mean/none/0"
    assert set(tokenrows.METHODS) == {"wordllama"} | {settings.family_method(m.key) for m in family.members("tokens")}
    assert "wordllama" in settings.RIVALS and "wordllama" in settings.METHODS


def _files():
    """A column's score arrays and JSON, and its token file's JSON: 4 validation and 4 test couples."""
    rng = np.random.default_rng(0)
    z = {f"{s}_label": np.array([1, 1, 0, 0], np.int8) for s in ("validation", "test")}
    methods = ["learned_best", "peer_best", settings.family_method("plain-euclidean"),
               settings.family_method("wordllama_plain-euclidean"), tokentables.peer_method(tokentables.PEER_CONFIGS[1])]
    for s in ("validation", "test"):
        for m in methods:
            for metric in settings.TABLE_METRICS:
                z[settings.score_key(s, m, metric)] = rng.normal(size=4)
    meta = {"family": {"validation_split_error": {"euclidean": {"plain-euclidean": 0.2}, "cosine": {"plain-euclidean": 0.2}},
                       "chosen": {}},
            "peers": {"sif": {}, "peer_best": {"grid": 40, "validation_split_error": {
                "euclidean": {"mean/none/0": 0.25}, "cosine": {"mean/none/0": 0.25}},
                "euclidean": {"config": "mean/none/0"}, "cosine": {"config": "mean/none/0"}}}}
    token = {"family": {"euclidean": {"wordllama_plain-euclidean": 0.1}, "cosine": {"wordllama_plain-euclidean": 0.2}},
             "peers": {"euclidean": {"mean/zipf/0": 0.2}, "cosine": {"mean/zipf/0": 0.3}}}
    return z, meta, token


def test_the_families_rows_are_chosen_among_word_and_token_candidates():
    """Euclidean: the token member and the token configuration have the lowest validation errors and
    become the rows (their scores); cosine: the token member ties with the word member, which comes
    first and stays; the word configuration stays. The inputs are not changed."""
    z, meta, token = _files()
    before = {k: v.copy() for k, v in z.items()}
    got, m = tokenrows.merge(z, meta, token)
    assert all(np.array_equal(z[k], before[k]) for k in z) and meta["family"]["chosen"] == {}
    tm, wm = settings.family_method("wordllama_plain-euclidean"), settings.family_method("plain-euclidean")
    config = tokentables.peer_method(tokentables.PEER_CONFIGS[1])
    for s in ("validation", "test"):
        assert np.array_equal(got[settings.score_key(s, "learned_best", "euclidean")], z[settings.score_key(s, tm, "euclidean")])
        assert np.array_equal(got[settings.score_key(s, "learned_best", "cosine")], z[settings.score_key(s, wm, "cosine")])
        assert np.array_equal(got[settings.score_key(s, "peer_best", "euclidean")], z[settings.score_key(s, config, "euclidean")])
        assert np.array_equal(got[settings.score_key(s, "peer_best", "cosine")], z[settings.score_key(s, "peer_best", "cosine")])
    assert m["family"]["chosen"] == {"euclidean": {"member": "wordllama_plain-euclidean", "validation_split_error": 0.1},
                                     "cosine": {"member": "plain-euclidean", "validation_split_error": 0.2}}
    best = m["peers"]["peer_best"]
    assert best["grid"] == 40 + len(tokentables.PEER_CONFIGS)
    assert best["euclidean"]["config"] == "wordllama:mean/zipf/0" and best["euclidean"]["validation_split_error_search"] == 0.2
    assert best["euclidean"]["label"] == "WordLlama's tokens: mean, Zipfian-whitened"
    assert best["cosine"] == {"config": "mean/none/0"}
    assert best["validation_split_error"]["cosine"] == {"mean/none/0": 0.25, "wordllama:mean/zipf/0": 0.3}


def test_the_token_space_must_be_the_one_the_df_file_counted(tmp_path):
    from repro.io import store
    from repro.errors import InputError

    folder = token_folder(tmp_path / "space", TEXTS, vocab_size=40)
    (tmp_path / "data" / "tokens").mkdir(parents=True)
    store.save_word_df(str(tmp_path / "data" / "tokens" / "df.npz"), ["a", "b"], [1, 1], 2, [1, 1])
    with pytest.raises(InputError, match="df.npz: not the df and counts of every token"):
        tokenrows.space_setup(str(tmp_path / "data"), folder)
    assert tokenspace.is_token_folder(folder)
