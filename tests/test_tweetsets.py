"""repro.data.tweets.tweetsets: related-only clusters per split, the cues of a Table 2 column, the files."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from repro.io import store
from repro.data.tweets import tweetsets
from repro.data.tweets.tweetclean import clean_text
from repro.errors import run
from repro.words.vocabulary import Vocabulary


def test_clusters_come_from_related_couples_only():
    """Unrelated couples are no edges: t1-t4 does not glue {t1, t2, t3} to {t4, t5}."""
    info = [{"ids": ids} for ids in (["t1", "t2"], ["t4", "t5"], ["t1", "t4"], ["t3", "t2"],
                                     ["t6", "t1"], ["t6", "t5"], ["t7", "t2"])]
    labels = [1, 1, 0, 1, 0, 0, 0]
    got = tweetsets.couple_groups(info, labels)
    # t1's cluster, t4's, t1's (unrelated: its tweet a's), t3's = t1's; t6 and t7 are in no related
    # couple: a fresh id each, shared by the two couples whose tweet a is t6
    assert got.dtype == np.int64 and got.tolist() == [0, 1, 0, 0, 2, 2, 3]


def test_answer_tokens_after_the_number_rule():
    assert tweetsets.answer_tokens(["a0", "a0b", "q0", "a", "ab0", "a00", "#a0"]) == {"a0", "a00"}
    assert tweetsets.answer_tokens(clean_text("A1: the answer is A2 not Q3")) == {"a0"}


def test_top_share():
    assert tweetsets.top_share([3, 3, 3, 1, 1, 2, 4, 5, 6, 7]) == 0.8  # 3 + 2 + 1 + 1 + 1 of 10
    assert tweetsets.top_share([9, 9], k=5) == 1.0 and tweetsets.top_share([]) is None


WORDS = [f"w{k}" for k in range(12)]


def tiny(manual=True):
    """30 related and 30 unrelated couples over three splits; related couple k joins tweet t_k to
    t_{k+1} (t_{k+2} when 4 divides k), unrelated couple k joins t_k to a tweet u_k of its own."""
    recs, labels, info = [], [], []
    for k in range(30):
        s = ("train", "validation", "test")[k % 3]
        a, b = f"t{k}", f"t{(k + 1) if k % 4 else k + 2}"
        recs.append(([WORDS[k % 12], WORDS[(k + 3) % 12]], [WORDS[(k + 5) % 12]]))
        labels.append(1)
        info.append({"ids": [a, b], "split": s, **({"manual_rt": [k % 5 == 0, False]} if manual else {})})
        recs.append(([WORDS[(k + 1) % 12]], [WORDS[(k * 7) % 12], "oov"]))
        labels.append(0)
        info.append({"ids": [a, f"u{k}"], "split": s, **({"manual_rt": [False, False]} if manual else {})})
    return recs, np.asarray(labels), info, Vocabulary(WORDS, np.arange(1, 13), 20)


# sha256 of the splits of tiny(manual=False) with seed 3, computed before the clusters and cues
# were added: they take no random draw, so the couples stay the same bytes
BEFORE_CLUSTERS = "a95417476e73c608"


def test_build_keeps_the_couples_and_gives_clusters_and_cues():
    recs, labels, info, vocab = tiny(manual=False)
    splits, groups, summary = tweetsets.build(recs, labels, info, vocab, 3)
    h = hashlib.sha256()
    for name in sorted(splits):
        for arr in splits[name]:
            h.update(name.encode())
            h.update(np.ascontiguousarray(arr).tobytes())
    assert h.hexdigest()[:16] == BEFORE_CLUSTERS
    # every related couple of a split is joined to the next of that split only through tweets of
    # other splits' couples: each related couple is a cluster of its own, each unrelated one shares
    # its tweet a's
    for name, ps in splits.items():
        g, rel = groups[name], ps.label == 1
        assert g.shape == ps.label.shape and (g >= 0).all()
        assert np.unique(g[rel]).size == rel.sum()
        assert set(g[~rel].tolist()) <= set(g[rel].tolist())
        c = summary["counts"][name]
        assert c["related_clusters"] == c["components"] == 10 and c["largest_cluster_related"] == 1
    cues = summary["cues"]
    assert cues["manual_retweet_share"] is None  # a couples file without the flags
    assert cues["top5_component_share_test"] == 0.5  # 5 of the 10 related test couples
    assert cues["answer_token_share"] == {"related": 0.0, "unrelated": 0.0}
    # related texts: 2 and 1 known words; unrelated: 1 and 1 ("oov" is not in the vocabulary)
    assert cues["mean_known_words"] == {"related": 1.5, "unrelated": 1.0}


def test_cues_by_hand():
    recs, labels, info, vocab = tiny()
    # couples 0..5: related t0-t2 (manual a), unrelated, related t1-t2, unrelated, related, unrelated
    recs[2] = (["a0", "w1"], ["w2", "a0"])  # related couple 1 shares an answer token
    recs[3] = (["a0"], ["a0", "w1"])         # so does unrelated couple 1
    known = np.asarray([2, 1] * 60)
    picks = {"train": np.arange(0, 20), "validation": np.arange(20, 40), "test": np.arange(40, 60)}
    clusters = {"train": np.zeros(20), "validation": np.zeros(20),
                "test": np.asarray([0, 9, 1, 9, 1, 9, 2, 9, 3, 9, 4, 9, 5, 9, 5, 9, 5, 9, 6, 9])}
    cues = tweetsets.cue_stats(recs, labels, info, known, picks, clusters)
    # related couples k = 0, 5, 10, 15, 20, 25 have a manual retweet: 6 of 30; in the test
    # split (couples 40..59: related k = 20..29) k = 20 and 25
    assert cues["manual_retweet_share"] == {"related": 0.2, "related_test": 0.2}
    assert cues["answer_token_share"] == {"related": round(1 / 30, 4), "unrelated": round(1 / 30, 4)}
    # related test clusters 0, 1, 1, 2, 3, 4, 5, 5, 5, 6: the five largest hold 3 + 2 + 1 + 1 + 1
    assert cues["top5_component_share_test"] == 0.8
    assert cues["mean_known_words"] == {"related": 1.5, "unrelated": 1.5}


def test_command_writes_groups_of_all_three_splits(tmp_path, capsys):
    recs, labels, info, vocab = tiny()
    path = tmp_path / "couples.jsonl"
    path.write_text("".join(json.dumps({"label": int(y), "a": a, "b": b, **x}) + "\n"
                            for (a, b), y, x in zip(recs, labels, info)))
    (tmp_path / "vocab.txt").write_text("".join(w + "\n" for w in WORDS))
    store.save_df(str(tmp_path / "df.npz"), np.arange(1, 13), 20)
    out = tmp_path / "set"
    assert run(tweetsets.main, ["--couples", str(path), "--vocab", str(tmp_path / "vocab.txt"),
                                "--df", str(tmp_path / "df.npz"), "--seed", "3", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    groups = store.load_groups(str(out / "groups.npz"), {k: v["total"] for k, v in summary["counts"].items()})
    assert sorted(groups) == ["test", "train", "validation"]
    assert summary["cues"]["manual_retweet_share"] == {"related": 0.2, "related_test": 0.2}
    assert summary["cues"]["top5_component_share_test"] == 0.5
