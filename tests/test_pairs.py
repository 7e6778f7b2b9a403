"""repro.data.wikipedia.wikipairs: window and pair rules, idf order, unrelated matching, splits; the whole chain's determinism."""

import bz2
import collections
import json
import os
import shutil
from xml.sax.saxutils import escape

import numpy as np
import pytest

from repro.errors import run
from repro.data.wikipedia import paragraphdf
from repro.data.wikipedia import embeddings
from repro.data.wikipedia import wikidump
from repro.data.wikipedia import wikipairs as pairs
from repro.io import store
from repro.data import couples
from repro.io.store import load_pairs as load
from repro.words.docfreq import idf
from repro.words.vocabulary import Vocabulary, idf_order_rank



def sort_text(ids, rank: np.ndarray) -> np.ndarray:
    """Word indices of one text in descending-idf order (word-string tie-break), one text at a
    time: the brute-force order that repro.words.text.pack_texts must give."""
    ids = np.asarray(ids, dtype=np.int64)
    return ids[np.argsort(rank[ids], kind="stable")]


# ---- windows and related pairs -----------------------------------------------------------------


def test_take_window_drops_oov_without_counting():
    ids = [-1, 4, -1, -1, 7, 9, -1, 2]
    assert pairs.take_window(ids, 0, 3) == ([4, 7, 9], 1, 6)
    assert pairs.take_window(ids, 2, 3) == ([7, 9, 2], 4, 8)
    assert pairs.take_window(ids, 5, 3) is None  # the paragraph ends first


def test_related_pair_skips_two_raw_tokens():
    #      0  1   2  3  4  5   6  7  8  9 10 11 12 13
    ids = [0, -1, 1, 2, 3, 4, -1, 5, 6, 7, 8, 9, 10, 11]
    found = pairs.related_pairs(ids, lambda: (3, 3))
    # A = positions 0, 2, 3; tokens 4 and 5 are skipped although in the vocabulary; B starts
    # collecting at 6 (OOV, dropped): 7, 8, 9. The next A (10..12) finds no room for a B.
    assert found == [([0, 1, 2], [5, 6, 7], (0, 4), (7, 10))]


def test_walk_continues_with_disjoint_windows():
    rng = np.random.default_rng(3)
    for _ in range(200):
        ids = [int(x) if rng.random() > 0.2 else -1 for x in rng.integers(0, 50, size=int(rng.integers(0, 160)))]
        sizes_drawn = []

        def sizes():
            n = rng.integers(10, 31, size=2)
            sizes_drawn.append((int(n[0]), int(n[1])))
            return sizes_drawn[-1]

        found = pairs.related_pairs(ids, sizes)
        prev_end = 0
        for k, (a, b, (a0, a1), (b0, b1)) in enumerate(found):
            assert (len(a), len(b)) == sizes_drawn[k]
            assert a == [w for w in ids[a0:a1] if w >= 0] and b == [w for w in ids[b0:b1] if w >= 0]
            assert all(w < 0 for w in ids[prev_end:a0])  # nothing in-vocabulary left out before A
            assert b0 >= a1 + 2 and all(w < 0 for w in ids[a1 + 2 : b0])  # exactly two raw tokens skipped
            assert prev_end <= a0 < a1 <= b0 < b1 <= len(ids)  # disjoint, in paragraph order
            prev_end = b1
        # the walk stops only when the paragraph cannot hold one more pair
        if len(sizes_drawn) == len(found):
            assert prev_end == len(ids)  # nothing left to draw for
            continue
        n_a, n_b = sizes_drawn[len(found)]
        rest = [w for w in ids[prev_end:] if w >= 0]
        if len(rest) >= n_a + n_b + 2:
            a = pairs.take_window(ids, prev_end, n_a)
            assert pairs.take_window(ids, a[2] + 2, n_b) is None


# ---- idf order, matching, splits ---------------------------------------------------------------


def test_descending_idf_with_word_tie_break():
    words = ["b", "a", "c", "d"]
    df = np.array([5, 5, 1, 9])
    rank = idf_order_rank(words, idf(df, 10))
    assert sort_text([3, 0, 1, 2, 1], rank).tolist() == [2, 1, 1, 0, 3]  # c, a, a, b, d


def test_unrelated_matching_never_pairs_one_article():
    rng = np.random.default_rng(0)
    for _ in range(50):
        arts = rng.integers(0, int(rng.integers(2, 12)), size=2 * int(rng.integers(1, 80)))
        if np.bincount(arts).max() > len(arts) // 2:
            continue
        matched, lost = couples.match_unrelated(arts, rng)
        assert lost == 0 and len(matched) == len(arts) // 2
        assert (arts[matched[:, 0]] != arts[matched[:, 1]]).all()
        assert sorted(matched.ravel().tolist()) == list(range(len(arts)))


def test_unrelated_matching_with_a_dominant_article():
    arts = np.array([0] * 8 + [1] * 2)
    matched, lost = couples.match_unrelated(arts, np.random.default_rng(1))
    assert len(matched) == 2 and lost == 3
    assert (arts[matched[:, 0]] != arts[matched[:, 1]]).all()


def test_split_sizes():
    assert couples.split_sizes(49) == [15, 15, 19]
    assert couples.split_sizes(4_900_000) == [1_500_000, 1_500_000, 1_900_000]
    for n in range(3, 400):
        s = couples.split_sizes(n)
        assert sum(s) == n and min(s) >= 0 and abs(s[0] / n - 15 / 49) < 3 / n + 1e-9


# ---- pair sets from a paragraph file -----------------------------------------------------------


def synthetic_corpus(tmp_path, n_articles=8, paragraphs=6, seed=0):
    """Article k uses only the words a{k}_0..a{k}_39 plus shared OOV tokens 'zz<j>'."""
    rng = np.random.default_rng(seed)
    lines = []
    for k in range(n_articles):
        for _ in range(paragraphs):
            toks = [f"a{k}_{int(j)}" if rng.random() > 0.15 else f"zz{int(j)}" for j in rng.integers(0, 40, int(rng.integers(20, 160)))]
            lines.append(f"{100 + k}\t{' '.join(toks)}")
    par = tmp_path / "paragraphs.tsv"
    par.write_text("\n".join(lines) + "\n")
    words = sorted({t for line in lines for t in line.split("\t")[1].split() if not t.startswith("zz")})
    voc = tmp_path / "vocab.txt"
    voc.write_text("\n".join(words) + "\n")
    df, n = paragraphdf.document_frequencies(str(par), words, workers=1)
    store.save_df(str(tmp_path / "df.npz"), df, n)
    return par, voc, tmp_path / "df.npz", words, df, n, lines


def texts_of(ps, side):
    arr, lens = (ps.a, ps.len_a) if side == "a" else (ps.b, ps.len_b)
    return [tuple(row[:n]) for row, n in zip(arr.tolist(), lens.tolist())]


@pytest.mark.parametrize("setting, split_by", [("wiki20", "group"), ("wikivar", "group"), ("wiki20", "pair")])
def test_pair_sets(tmp_path, capsys, setting, split_by):
    par, voc, dfp, words, df, n, lines = synthetic_corpus(tmp_path)
    out = tmp_path / setting
    args = ["--paragraphs", str(par), "--vocab", str(voc), "--df", str(dfp), "--setting", setting, "--seed", "5",
            "--out", str(out), "--split-by", split_by]
    assert run(pairs.main, args) == 0
    assert sorted(os.listdir(out)) == ["groups.npz", "summary.json", "test.npz", "train.npz", "validation.npz"]
    summary = json.loads((out / "summary.json").read_text())
    groups = store.load_groups(str(out / "groups.npz"), {k: v["total"] for k, v in summary["counts"].items()})
    rank = idf_order_rank(words, idf(df, n))
    article = lambda text: {words[i].split("_")[0] for i in text}  # noqa: E731
    width = 20 if setting == "wiki20" else 30
    seen_texts, articles_of = {}, {}
    related_total = 0
    for name in ("train", "test", "validation"):
        ps = load(str(out / f"{name}.npz"))
        assert ps.width == width
        lens = np.concatenate([ps.len_a, ps.len_b])
        if setting == "wiki20":
            assert (lens == 20).all()
        else:
            assert lens.min() >= 10 and lens.max() <= 30
        for arr, ln in ((ps.a, ps.len_a), (ps.b, ps.len_b)):
            for row, k in zip(arr, ln):
                assert (row[k:] == 0).all()  # padding
                assert (np.diff(rank[row[:k]]) >= 0).all()  # descending idf, word tie-break
        ta, tb = texts_of(ps, "a"), texts_of(ps, "b")
        for x, y, label in zip(ta, tb, ps.label.tolist()):
            assert len(article(x)) == 1 and len(article(y)) == 1  # a text stays in one article
            assert (article(x) == article(y)) == (label == 1)  # related: same article; unrelated: different
        rel = ps.label == 1
        # every couple's bootstrap cluster is its text a's article: one id per article, one article per id
        id_of = {}
        for x, g in zip(ta, groups[name].tolist()):
            assert id_of.setdefault(next(iter(article(x))), g) == g
        assert len(set(id_of.values())) == len(id_of) == summary["counts"][name]["related_clusters"]
        assert rel.sum() == (~rel).sum() == summary["counts"][name]["related"]
        # both classes hold the same texts; no text in two splits
        rel_texts = collections.Counter([t for t, r in zip(ta, rel) if r] + [t for t, r in zip(tb, rel) if r])
        unrel_texts = collections.Counter([t for t, r in zip(ta, rel) if not r] + [t for t, r in zip(tb, rel) if not r])
        assert rel_texts == unrel_texts
        for t in rel_texts:
            assert seen_texts.setdefault(t, name) == name
            articles_of.setdefault(name, set()).update(article(t))
        related_total += int(rel.sum())
    assert related_total + sum(summary["dropped_for_balance"].values()) == summary["related_pairs_found"]
    assert summary["split_by"] == split_by
    sizes = [summary["counts"][k]["related"] for k in ("train", "test", "validation")]
    if split_by == "pair":
        assert sizes == couples.split_sizes(related_total)
    else:  # no article gives texts to two splits
        a, b, c = (articles_of[k] for k in ("train", "test", "validation"))
        assert not (a & b) and not (a & c) and not (b & c) and len(a | b | c) == 8
    if setting == "wiki20":  # every related pair is one that the walk finds in one paragraph
        index = {w: i for i, w in enumerate(words)}
        expected = collections.Counter()
        for line in lines:
            ids = [index.get(t, -1) for t in line.split("\t")[1].split()]
            for a, b, _, _ in pairs.related_pairs(ids, lambda: (20, 20)):
                expected[(tuple(sort_text(a, rank).tolist()), tuple(sort_text(b, rank).tolist()))] += 1
        got = collections.Counter()
        for name in ("train", "test", "validation"):
            ps = load(str(out / f"{name}.npz"))
            got.update((x, y) for x, y, r in zip(texts_of(ps, "a"), texts_of(ps, "b"), ps.label.tolist()) if r)
        assert not (got - expected)  # every related couple is one the walk finds in one paragraph
        assert sum((expected - got).values()) == sum(summary["dropped_for_balance"].values())
    assert setting in capsys.readouterr().out


@pytest.mark.parametrize("setting", ["wiki20", "wikivar"])
def test_max_related_keeps_the_first_couples_in_corpus_order(tmp_path, setting):
    """--max-related N (the original code's stop at its target): the first N related couples of
    the uncapped walk, cut inside a paragraph where N falls there; a cap at or above the total
    changes nothing, and the stats count only the paragraphs read."""
    par, voc, dfp, words, df, n, lines = synthetic_corpus(tmp_path)
    vocab = Vocabulary(words, df, n)

    def walk(cap):
        return pairs.collect_windows(str(par), vocab, setting, np.random.default_rng(3), False, cap)

    flat, lengths, arts, stats = walk(None)
    total = len(lengths) // 2
    assert total > 20
    for cap in (1, total // 2 + 1, total - 1):  # total // 2 + 1: falls inside a paragraph or not
        f, ln, ar, st = walk(cap)
        assert len(ln) == 2 * cap
        assert (ln == lengths[: 2 * cap]).all() and (ar == arts[: 2 * cap]).all()
        assert (f == flat[: ln.sum()]).all()
        assert st["paragraphs"] < stats["paragraphs"] or cap == total
    for cap in (total, total + 5):  # at the total the walk may stop before pair-less last paragraphs
        f, ln, ar, st = walk(cap)
        assert (f == flat).all() and (ln == lengths).all() and (ar == arts).all()
        assert st == stats or (cap == total and st["paragraphs"] <= stats["paragraphs"])


def test_max_related_in_the_command(tmp_path, capsys):
    par, voc, dfp, *_ = synthetic_corpus(tmp_path)
    base = ["--paragraphs", str(par), "--vocab", str(voc), "--df", str(dfp), "--setting", "wiki20", "--seed", "1"]
    assert run(pairs.main, base + ["--out", str(tmp_path / "capped"), "--max-related", "40"]) == 0
    summary = json.loads((tmp_path / "capped" / "summary.json").read_text())
    assert summary["related_pairs_found"] == 40 and summary["max_related"] == 40
    assert run(pairs.main, base + ["--out", str(tmp_path / "zero"), "--max-related", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-related must be at least 1" in err[0]
    assert not (tmp_path / "zero").exists()


def test_seed_changes_and_fixes_the_sets(tmp_path):
    par, voc, dfp, *_ = synthetic_corpus(tmp_path)
    blobs = {}
    for tag, seed in (("x", "1"), ("y", "1"), ("z", "2")):
        out = tmp_path / tag
        assert run(pairs.main, ["--paragraphs", str(par), "--vocab", str(voc), "--df", str(dfp), "--setting", "wikivar",
                           "--seed", seed, "--out", str(out)]) == 0
        blobs[tag] = [(out / f).read_bytes() for f in ("train.npz", "test.npz", "validation.npz", "summary.json")]
    assert blobs["x"] == blobs["y"]
    assert blobs["x"][0] != blobs["z"][0]


@pytest.mark.parametrize("case", ["one-short-paragraph", "two-pairs", "one-article", "df-mismatch"])
def test_too_small_or_inconsistent(tmp_path, capsys, case):
    par, voc, dfp, words, df, n, lines = synthetic_corpus(tmp_path, n_articles=2, paragraphs=3)
    blamed = par
    if case == "one-short-paragraph":
        par.write_text("1\t" + " ".join(words[:30]) + "\n")
    elif case == "two-pairs":
        par.write_text("".join(f"{k}\t{' '.join(words[:42])}\n" for k in range(2)))
    elif case == "one-article":
        par.write_text("".join(f"7\t{' '.join(words[:42])}\n" for _ in range(6)))
    else:
        store.save_df(str(dfp), df[:-1], n)
        blamed = dfp
    out = tmp_path / "set"
    before = set(os.listdir(tmp_path))
    assert run(pairs.main, ["--paragraphs", str(par), "--vocab", str(voc), "--df", str(dfp), "--setting", "wiki20", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {blamed}: ") and err.count("\n") == 1, err
    assert set(os.listdir(tmp_path)) == before and not out.exists()


# ---- the whole chain: same seed, same bytes ----------------------------------------------------


def chain_dump(path, seed=0):
    """A dump of 6 articles of 5 paragraphs of made-up words, plus a redirect and a talk page."""
    rng = np.random.default_rng(seed)
    syll = ["ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vu", "ze"]
    vocab = sorted({"".join(rng.choice(syll, size=3)) for _ in range(300)})
    pages = []
    for k in range(6):
        own = rng.choice(vocab, size=60, replace=False)
        paragraphs = []
        for _ in range(5):
            words = rng.choice(own, size=int(rng.integers(45, 120)))
            paragraphs.append(" ".join(words).capitalize() + ", in 1,990 cases.")
        text = f"{{{{Infobox|n={k}}}}}\n" + "\n\n== Part ==\n".join(paragraphs)
        pages.append((f"Article {k}", "0", str(10 + k), text))
    pages.append(("Old name", "0", "99", "#REDIRECT [[Article 0]]"))
    pages.append(("Talk:Article 0", "1", "98", "a talk page with words that must not count at all"))
    xml = ['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10">']
    for title, ns, pid, text in pages:
        xml.append(f"<page><title>{escape(title)}</title><ns>{ns}</ns><id>{pid}</id><revision><id>1</id>"
                   f"<text>{escape(text)}</text></revision></page>")
    xml.append("</mediawiki>\n")
    path.write_bytes(bz2.compress("\n".join(xml).encode()))


def run_chain(data, dump, seed="3"):
    par = data / "paragraphs.tsv"
    assert run(wikidump.main, ["--out", str(par), "--dump", str(dump), "--workers", "2"]) == 0
    assert run(embeddings.main, ["--paragraphs", str(par), "--out", str(data / "w2v"), "--epochs", "2", "--seed", seed,
                            "--dim", "8", "--min-count", "2"]) == 0
    assert run(paragraphdf.main, ["--paragraphs", str(par), "--vocab", str(data / "w2v" / "vocab.txt"), "--out", str(data / "df.npz")]) == 0
    for setting in ("wiki20", "wikivar"):
        assert run(pairs.main, ["--paragraphs", str(par), "--vocab", str(data / "w2v" / "vocab.txt"), "--df", str(data / "df.npz"),
                           "--setting", setting, "--seed", seed, "--out", str(data / setting)]) == 0
    return {str(p.relative_to(data)): p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file()}


def test_whole_chain_is_byte_identical_for_one_seed(tmp_path, capsys):
    dump = tmp_path / "dump.xml.bz2"
    chain_dump(dump)
    data = tmp_path / "data"
    data.mkdir()
    first = run_chain(data, dump)
    shutil.rmtree(data)  # same paths again, so the summaries (which name their inputs) compare too
    data.mkdir()
    second = run_chain(data, dump)
    assert sorted(first) == sorted([
        "df.npz", "paragraphs.json", "paragraphs.tsv",
        "w2v/summary.json", "w2v/vectors.npy", "w2v/vocab.txt",
        "wiki20/groups.npz", "wiki20/summary.json", "wiki20/test.npz", "wiki20/train.npz", "wiki20/validation.npz",
        "wikivar/groups.npz", "wikivar/summary.json", "wikivar/test.npz", "wikivar/train.npz", "wikivar/validation.npz",
    ])
    assert first == second
    s = json.loads(first["wiki20/summary.json"])
    assert s["counts"]["train"]["related"] > 0 and s["counts"]["train"]["unrelated"] == s["counts"]["train"]["related"]
    p = json.loads(first["paragraphs.json"])
    assert (p["articles"], p["paragraphs"], p["redirects"], p["other_namespaces"]) == (6, 30, 1, 1)
