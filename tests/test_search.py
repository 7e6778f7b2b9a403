"""repro.search at scale (issue 58): the cells, the couples through them, the dedup rules, the index
folder and its adds, the stream, and distinct texts encoded on forked processes; each against a
brute force or a hand-made answer."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from repro.core.textmetric import vector_scores
from repro.errors import InputError
from repro.search import cells, cellsearch, dedup, duplicates, indexfolder, rules
from repro.search.stream import Window


def planted(n=3000, d=24, copies=300, noise=0.08, seed=0):
    """(x, couples): n - copies random rows and a near copy of ``copies`` of them placed after them."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n - copies, d)).astype(np.float32)
    orig = np.sort(rng.choice(n - copies, copies, replace=False))
    near = base[orig] + noise * rng.standard_normal((copies, d)).astype(np.float32)
    x = np.concatenate([base, near])
    return x, np.stack([orig, n - copies + np.arange(copies)], axis=1)


def brute_couples(x, t, metric="cosine"):
    """Every couple i < j scoring >= t, by vector_scores of each couple."""
    i, j = np.triu_indices(len(x), 1)
    s = vector_scores(x[i], x[j], metric)
    keep = s >= t
    return i[keep], j[keep], s[keep]


def brute_keep_first(x, t, metric="cosine"):
    """The keep-first rule item by item, every couple scored on its own."""
    kept, dup, score = [], [], []
    for j in range(len(x)):
        ks = [i for i in range(j) if kept[i]]
        s = vector_scores(np.repeat(x[j:j + 1], len(ks), 0), x[ks], metric) if ks else np.zeros(0)
        ok = np.flatnonzero(s >= t)
        if ok.size:
            best = ok[np.lexsort((np.array(ks)[ok], -s[ok]))[0]]
            kept.append(False), dup.append(ks[best]), score.append(s[best])
        else:
            kept.append(True), dup.append(-1), score.append(np.nan)
    return np.array(kept), np.array(dup), np.array(score)


@pytest.fixture
def small_cells(monkeypatch):
    """Cells learned on the first 800 rows, placed in blocks of 256 (so that tests cross both)."""
    monkeypatch.setattr(cells, "TRAIN", 800)
    monkeypatch.setattr(cells, "BLOCK", 256)


# ---- cells and the couples through them -------------------------------------------------------

def test_kmeans_cells_find_separated_clusters():
    rng = np.random.default_rng(1)
    centres = np.eye(8, 16, dtype=np.float32) * 10
    x = np.repeat(centres, 50, axis=0) + rng.standard_normal((400, 16)).astype(np.float32)
    x = x[rng.permutation(400)]
    cent = cells.train_cells(x, "cosine", 8)
    home, scores = cells.nearest_cells(x, cent, "cosine", 2)
    truth = np.argmax(x @ centres.T, axis=1)
    # each true cluster lands in one cell, and the cells are the clusters
    assert all(len(set(home[truth == c, 0])) == 1 for c in range(8)) and len(set(home[:, 0])) == 8
    assert (scores[:, 0] >= scores[:, 1]).all()


def test_cells_of_rows_do_not_depend_on_the_rows_after_them(small_cells):
    x, _ = planted(1000)
    cent = cells.train_cells(x, "cosine")
    whole, _ = cells.nearest_cells(x, cent, "cosine", 3)
    tail, _ = cells.nearest_cells(x, cent, "cosine", 3, start=512)
    part, _ = cells.nearest_cells(x[:600], cent, "cosine", 3)
    np.testing.assert_array_equal(whole[512:], tail)
    np.testing.assert_array_equal(whole[:600], part)


@pytest.mark.parametrize("metric, t", [("cosine", 0.9), ("euclidean", -2.0)])
def test_couples_through_every_cell_are_the_exact_couples(metric, t):
    """Probing every cell finds exactly the brute force's couples and scores, bit for bit."""
    x, _ = planted(1200, d=8, noise=0.3)
    cent = cells.train_cells(x, metric, 6)
    near, _ = cells.nearest_cells(x, cent, metric, 6)
    i, j, s = cellsearch.couples(x, dedup.norms(x, "x"), near, 6, t, metric, probes=6)
    bi, bj, bs = brute_couples(x, t, metric)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_array_equal(j, bj)
    np.testing.assert_array_equal(s, bs)


def test_couples_through_few_cells_are_exact_where_found_and_find_the_planted_copies():
    x, plant = planted(4000, copies=400)
    i, j, s = duplicates.cell_couples(x, 0.9)
    bi, bj, bs = brute_couples(x, 0.9)
    found = dict(zip(zip(i.tolist(), j.tolist()), s.tolist()))
    truth = dict(zip(zip(bi.tolist(), bj.tolist()), bs.tolist()))
    assert set(found) <= set(truth) and all(found[c] == truth[c] for c in found)  # no false couple, exact scores
    assert len(found) >= 0.97 * len(truth) and len(truth) >= 350
    planted_found = np.mean([tuple(p) in found for p in plant.tolist()])
    planted_exact = np.mean([tuple(p) in truth for p in plant.tolist()])
    assert planted_found >= planted_exact - 0.02


def test_exact_scores_from_kept_norms_are_vector_scores_bit_for_bit():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((500, 33)).astype(np.float32)
    x[7] = 0
    i, j = rng.integers(0, 500, 4000), rng.integers(0, 500, 4000)
    got = cellsearch.exact_scores(x, i, j, "cosine", cellsearch.float64_norms(x, block=77))
    np.testing.assert_array_equal(got, vector_scores(x[i], x[j], "cosine"))


# ---- the rules ----------------------------------------------------------------------------

def test_keep_first_on_a_hand_made_chain():
    """a, then a' close to a, then a'' close to a' but not to a, then b: keep first drops a' only;
    groups join the chain a, a', a''."""
    a = np.array([1.0, 0.0, 0.0], np.float32)
    a1 = np.array([np.cos(0.3), np.sin(0.3), 0], np.float32)  # cos 0.955 with a
    a2 = np.array([np.cos(0.6), np.sin(0.6), 0], np.float32)  # 0.955 with a', 0.825 with a
    b = np.array([0, 0, 1.0], np.float32)
    x = np.stack([a, a1, a2, b])
    r = duplicates.near_duplicates(x, 0.9, rule="first", exact=True)
    assert r.kept.tolist() == [True, False, True, True]
    assert r.duplicate_of.tolist() == [-1, 0, -1, -1]
    assert r.score[1] == vector_scores(x[1:2], x[0:1], "cosine")[0] and np.isnan(r.score[[0, 2, 3]]).all()
    g = duplicates.near_duplicates(x, 0.9, rule="groups", exact=True)
    assert g.group.tolist() == [0, 0, 0, 1] and g.largest() == 3 and r.largest() == 2


def test_keep_first_names_the_kept_item_it_scores_highest_with():
    a = np.array([1.0, 0.0], np.float32)
    far = np.array([np.cos(0.4), np.sin(0.4)], np.float32)
    mid = np.array([np.cos(0.2), np.sin(0.2)], np.float32)
    x = np.stack([a, far, mid])  # far is kept (cos 0.921 < 0.95), mid is nearer far than a? no: equal angles
    r = duplicates.near_duplicates(x, 0.95, rule="first", exact=True)
    assert r.kept.tolist() == [True, True, False]
    s = vector_scores(np.stack([mid, mid]), np.stack([a, far]), "cosine")
    assert r.duplicate_of[2] == (0 if (s[0] > s[1] or s[0] == s[1]) else 1)


@pytest.mark.parametrize("exact", [True, False])
def test_both_rules_match_their_brute_force(exact):
    x, _ = planted(900, d=6, copies=200, noise=0.2, seed=4)
    g = duplicates.near_duplicates(x, 0.93, rule="groups", exact=exact)
    f = duplicates.near_duplicates(x, 0.93, rule="first", exact=exact)
    if exact:
        want_group, want_size = dedup.groups(x, 0.93, "cosine")
        np.testing.assert_array_equal(g.group, want_group)
        np.testing.assert_array_equal(g.size, want_size)
        kept, dup, score = brute_keep_first(x, 0.93)
        np.testing.assert_array_equal(f.kept, kept)
        np.testing.assert_array_equal(f.duplicate_of, dup)
        np.testing.assert_array_equal(f.score, score)
    else:  # what the cells find is exact: a dropped item scores >= T with its kept one
        s = vector_scores(x[~f.kept], x[f.duplicate_of[~f.kept]], "cosine")
        np.testing.assert_array_equal(s, f.score[~f.kept])
        assert (s >= 0.93).all() and f.kept[f.duplicate_of[~f.kept]].all()


def test_items_that_share_a_row_are_the_same_as_their_vectors_repeated():
    """Distinct rows and each item's row (a text repeated, encoded once) give what the expanded
    vectors give, under both rules; a repeated zero vector is not its own duplicate (cosine 0)."""
    x, _ = planted(600, d=5, copies=100, noise=0.2, seed=5)
    x[3] = 0
    rep = np.random.default_rng(6).integers(0, 600, 1500)
    rep[:2] = 3
    expanded = x[rep]
    for rule in ("groups", "first"):
        a = duplicates.near_duplicates(x, 0.95, rule=rule, rep=rep, exact=True)
        b = duplicates.near_duplicates(expanded, 0.95, rule=rule, exact=True)
        for field in ("group", "size", "kept", "duplicate_of", "score"):
            if getattr(a, field) is not None:
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    r = duplicates.near_duplicates(x, 0.95, rule="first", rep=rep, exact=True)
    assert r.kept[0] and r.kept[1]  # two zero vectors: cosine 0, no couple


def test_the_exact_path_is_chosen_below_the_crossover_and_forced_by_exact():
    assert not duplicates.uses_cells(duplicates.CROSSOVER - 1, 0.9, "cosine", None)
    assert duplicates.uses_cells(duplicates.CROSSOVER, 0.9, "cosine", None)
    assert not duplicates.uses_cells(10 ** 7, 0.9, "cosine", True)
    assert not duplicates.uses_cells(10 ** 7, -1.0, "euclidean", None)
    assert not duplicates.uses_cells(10 ** 7, 0.3, "cosine", False)
    x, _ = planted(500, d=6, copies=100)
    r = duplicates.near_duplicates(x, 0.9)
    want = dedup.groups(x, 0.9, "cosine")
    assert r.method == "exact" and np.array_equal(r.group, want[0])


# ---- the index folder ---------------------------------------------------------------------------

def test_adds_after_a_load_equal_a_build_at_once(tmp_path, small_cells):
    x, _ = planted(2000, d=16, copies=200)
    whole = indexfolder.create(str(tmp_path / "whole"), x, "cosine", encoder="E")
    indexfolder.create(str(tmp_path / "parts"), x[:500], "cosine", encoder="E", ids=[f"a{i}" for i in range(500)])
    indexfolder.add(str(tmp_path / "parts"), x[500:1300], encoder="E")  # past the training prefix: learnt again
    parts = indexfolder.add(str(tmp_path / "parts"), x[1300:], encoder="E", ids=["z"] * 700)
    np.testing.assert_array_equal(np.asarray(parts.vectors), x)
    np.testing.assert_array_equal(np.load(tmp_path / "parts" / "vectors.npy"), x)  # a plain .npy
    np.testing.assert_array_equal(np.asarray(parts.cells), np.asarray(whole.cells))
    np.testing.assert_array_equal(parts.centroids, whole.centroids)
    np.testing.assert_array_equal(parts.norms, whole.norms)
    for exact in (True, False):
        for a, b in zip(parts.top_k(x[:40], 5, exact=exact), whole.top_k(x[:40], 5, exact=exact)):
            np.testing.assert_array_equal(a, b)
    for rule in ("groups", "first"):
        a, b = parts.duplicates(0.9, rule, exact=False), whole.duplicates(0.9, rule, exact=False)
        assert a.method == b.method == "cells"
        np.testing.assert_array_equal(a.group if rule == "groups" else a.duplicate_of,
                                      b.group if rule == "groups" else b.duplicate_of)
    assert parts.id_of([0, 499, 500, 1299, 1300]) == ["a0", "a499", "500", "1299", "z"]


def test_an_add_keeps_the_probes_its_folder_was_made_with(tmp_path, small_cells, monkeypatch):
    from repro.search import cellsearch
    x, _ = planted(1500, d=16, copies=150)
    with monkeypatch.context() as m:  # a folder made under other defaults (as before 10 within 0.2)
        m.setattr(cellsearch, "MAX_PROBES", 3)
        m.setattr(cellsearch, "MARGIN", 0.1)
        whole = indexfolder.create(str(tmp_path / "whole"), x, "cosine")
        indexfolder.create(str(tmp_path / "parts"), x[:1000], "cosine")  # its training prefix (800) whole
    parts = indexfolder.add(str(tmp_path / "parts"), x[1000:])  # under today's defaults
    assert whole.cells.shape == parts.cells.shape == (1500, 3)
    np.testing.assert_array_equal(np.asarray(parts.cells), np.asarray(whole.cells))
    assert indexfolder.load(str(tmp_path / "parts")).manifest["cells"]["margin"] == 0.1


def test_the_index_top_k_is_exact_and_through_its_cells_scores_exactly(tmp_path, small_cells):
    from repro.search.neighbours import top_k
    x, _ = planted(2000, d=16, copies=200)
    index = indexfolder.create(str(tmp_path / "ix"), x, "cosine")
    want = top_k(x[:50], x, 10, "cosine")
    got = index.top_k(x[:50], 10)  # every item scanned, with the kept lengths
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    ids, scores = index.top_k(x[:50], 10, exact=False, probes=3)
    exact_s = vector_scores(np.repeat(x[:50], 10, 0), x[ids.ravel()], "cosine").reshape(50, 10)
    np.testing.assert_array_equal(scores, exact_s)  # every score exact
    assert (np.diff(scores, axis=1) <= 0).all() and (ids[:, 0] == np.arange(50)).all()
    everything = index.top_k(x[:50], 10, exact=False, probes=len(index.centroids))
    np.testing.assert_array_equal(everything[0], want[0])  # every cell probed: the exact top 10


def test_a_tampered_or_truncated_index_is_refused_with_one_line(tmp_path, small_cells):
    x, _ = planted(1000, d=8)
    folder = str(tmp_path / "ix")
    indexfolder.create(folder, x, "cosine", encoder="E")
    with pytest.raises(InputError, match="exists already"):
        indexfolder.create(folder, x, "cosine")
    with pytest.raises(InputError, match="another encoder"):
        indexfolder.add(folder, x[:3], encoder="F")
    with pytest.raises(InputError, match="7-d vectors, but the index's are 8-d"):
        indexfolder.add(folder, x[:3, :7])
    vec = os.path.join(folder, "vectors.npy")
    data = open(vec, "rb").read()
    with open(vec, "r+b") as f:  # one sampled row changed
        f.seek(indexfolder.HEADER)
        f.write(b"\x00\x00\x80\x3f")
    with pytest.raises(InputError, match="changed since the index was written") as e:
        indexfolder.load(folder)
    assert str(e.value).count("\n") == 0
    with open(vec, "wb") as f:
        f.write(data[:-100])
    with pytest.raises(InputError, match="truncated"):
        indexfolder.load(folder)
    with open(vec, "wb") as f:
        f.write(data)
    indexfolder.load(folder, verify=True)
    m = json.load(open(os.path.join(folder, "manifest.json")))
    m["format"] = "other"
    json.dump(m, open(os.path.join(folder, "manifest.json"), "w"))
    with pytest.raises(InputError, match="not a repro-index manifest"):
        indexfolder.load(folder)


def test_an_add_interrupted_before_its_manifest_leaves_the_index_as_it_was(tmp_path, small_cells):
    x, _ = planted(1000, d=8)
    folder = str(tmp_path / "ix")
    indexfolder.create(folder, x[:600], "cosine")
    with open(os.path.join(folder, "vectors.npy"), "ab") as f:  # rows an interrupted add wrote
        f.write(np.ones((5, 8), np.float32).tobytes())
    assert indexfolder.load(folder).n == 600
    again = indexfolder.add(folder, x[600:])
    np.testing.assert_array_equal(np.asarray(again.vectors), x)


# ---- the stream ---------------------------------------------------------------------------------

def nearby(n, d, seed=0):
    """Rows each of which is, one time in three, a near copy of a row a few places before it."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    for i in range(5, n, 3):
        x[i] = x[i - rng.integers(1, 6)] + 0.2 * rng.standard_normal(d).astype(np.float32)
    return x


@pytest.mark.parametrize("window, batch", [(4, 7), (40, 500), (3000, 64)])
def test_the_stream_finds_every_earlier_couple_in_its_count_window(window, batch):
    x = nearby(1500, 8)
    w = Window(8, 0.9, count=window)
    got = set()
    for lo in range(0, len(x), batch):
        r = w.push(x[lo:lo + batch], [f"t{i}" for i in range(lo, min(lo + batch, len(x)))])
        got |= set(zip(r.new_ids, r.earlier_ids, r.score.tolist()))
        assert len(w.x) <= window
    want = set()
    for i in range(len(x)):
        lo = max(0, i - window)
        s = vector_scores(np.repeat(x[i:i + 1], i - lo, 0), x[lo:i], "cosine")
        want |= {(f"t{i}", f"t{lo + j}", s[j]) for j in np.flatnonzero(s >= 0.9)}
    assert got == want and len(want) > 50


def test_the_stream_window_by_time_and_its_order():
    x = nearby(800, 6)
    times = np.cumsum(np.random.default_rng(2).random(800) * 20)
    w = Window(6, 0.9, span=300.0)
    got = set()
    for lo in range(0, 800, 100):
        r = w.push(x[lo:lo + 100], list(range(lo, lo + 100)), times[lo:lo + 100])
        got |= set(zip(r.new.tolist(), r.earlier.tolist()))
        assert (w.times >= w.times[-1] - 300).all()
    want = {(i, j) for i in range(800) for j in range(i) if times[j] >= times[i] - 300
            and vector_scores(x[i:i + 1], x[j:j + 1], "cosine")[0] >= 0.9}
    assert got == want and len(want) > 10
    with pytest.raises(InputError, match="text 800: its time is before"):
        w.push(x[:1], [0], [times[-1] - 1])


# ---- distinct texts on forked processes ---------------------------------------------------------

def test_distinct_texts_encoded_on_two_processes_are_transform_bit_for_bit(monkeypatch):
    from repro.encode import distinct
    from repro.encode.encoder import Encoder
    words = [f"w{i}" for i in range(40)]
    m = np.random.default_rng(0).standard_normal((40, 6)).astype(np.float32)
    enc = Encoder.from_vectors((words, m), corpus=[" ".join(words[i:i + 5]) for i in range(35)],
                               weights=np.linspace(1.0, 0.2, 10))
    rng = np.random.default_rng(1)
    texts = [" ".join(rng.choice(words, rng.integers(1, 9))) for _ in range(300)]
    texts += texts[:100]
    monkeypatch.setattr(distinct, "FORK_MIN", 10)
    v, rep = distinct.transform_distinct(enc, texts, processes=2)
    assert len(v) == len(set(texts)) and rep.shape == (400,)
    np.testing.assert_array_equal(v[rep], enc.transform(texts))
    np.testing.assert_array_equal(rep[300:], rep[:100])


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_a_rows_score_with_itself_is_vector_scores_bit_for_bit(metric):
    x = np.random.default_rng(8).standard_normal((300, 17)).astype(np.float32) * 3
    x[5] = 0
    np.testing.assert_array_equal(cellsearch.self_scores(x, metric, block=64), vector_scores(x, x, metric))


def test_the_shards_searched_with_dask_give_the_exact_top_k_of_the_whole_set(tmp_path):
    pytest.importorskip("dask")
    from repro.search import shards
    from repro.search.neighbours import top_k
    x, _ = planted(900, d=16, copies=90)
    x[500] = x[10]  # a tie across shards: the lower row wins
    np.save(tmp_path / "a.npy", x[:300])
    indexfolder.create(str(tmp_path / "b"), x[300:700], "cosine")
    np.save(tmp_path / "c.npy", x[700:])
    q = x[[10, 20, 650, 899]]
    want = top_k(q, x, 7, "cosine")
    for scheduler in ("sync", "threads"):
        got = shards.sharded_top_k(q, [str(tmp_path / "a.npy"), str(tmp_path / "b"), str(tmp_path / "c.npy")], 7,
                                   scheduler=scheduler)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert 10 in got[0][0] and 500 in got[0][0] and list(got[0][0]).index(10) < list(got[0][0]).index(500)
    with pytest.raises(InputError, match="a shard must be an index folder or a .npy of vectors"):
        shards.sharded_top_k(q, [str(tmp_path / "nothing")], 3)
