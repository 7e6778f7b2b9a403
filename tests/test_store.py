"""repro.io.store: every format round-trips, is written atomically, and fails with one clear line."""

from __future__ import annotations

import os

import numpy as np
import pytest

from repro.io import store
from repro.io.layout import Layout
from repro.core.modelrecord import ModelRecord
from repro.errors import InputError
from repro.core.pairset import PairSet


def pairs():
    return PairSet(np.array([[3, 1, 0], [2, 0, 0]], np.int32), np.array([[1, 2, 3], [4, 0, 0]], np.int32),
                   np.array([2, 1], np.int32), np.array([3, 1], np.int32), np.array([1, 0], np.int8))


def test_round_trips(tmp_path):
    lay = Layout(str(tmp_path))
    store.save_vectors(lay.w2v, ["a", "b", "c"], np.eye(3))
    words, table = store.load_vectors(lay.w2v)
    assert words == ["a", "b", "c"] and table.dtype == np.float32 and (table == np.eye(3)).all()
    store.save_df(lay.df, [3, 0, 1], 4)
    df, n = store.load_df(lay.df, vocab_size=3)
    assert df.tolist() == [3, 0, 1] and n == 4
    with pytest.raises(InputError, match="missing counts"):
        store.load_counts(lay.df)  # a df file without word counts
    store.save_df(lay.df, [3, 0, 1], 4, counts=[7, 0, 1])
    assert store.load_counts(lay.df, 3).tolist() == [7, 0, 1] and store.load_df(lay.df)[0].tolist() == [3, 0, 1]
    store.save_df(str(tmp_path / "bad.npz"), [3, 0, 1], 4, counts=[2, 0, 1])
    with pytest.raises(InputError, match="counts >= df"):
        store.load_counts(str(tmp_path / "bad.npz"))
    store.save_pairs(lay.pairs("wiki20", "train"), pairs())
    got = store.load_pairs(lay.pairs("wiki20", "train"))
    assert all((x == y).all() and x.dtype == y.dtype for x, y in zip(got, pairs()))
    made = dict(history=np.array([0.3, 0.2]), etas=np.array([0.01, 0.001]), epochs=2, lam=1e-3, distance="euclidean",
                train_pairs=4, seconds=dict(prepare=0.5, kappa_cv=1.0, train=2.0))
    store.save_model(lay.model("wiki20", "median"), ModelRecord([1.0, 0.5], loss="median", kappa=160.0,
                                                                kappa_source="given", **made))
    m = store.load_model(lay.model("wiki20", "median"))
    assert m.weights.tolist() == [1.0, 0.5] and m.distance == "euclidean"
    summary = m.summary()
    assert summary["loss"] == "median" and summary["kappa"] == 160.0 and summary["kappa_source"] == "given"
    assert summary["final_mean_loss"] == pytest.approx(0.2) and summary["seconds"]["prepare"] == 0.5
    store.save_model(lay.model("wiki20", "contrastive"), ModelRecord([1.0, 0.5], loss="contrastive", kappa=None,
                                                                     kappa_source="none", **made))
    summary = store.load_model(lay.model("wiki20", "contrastive")).summary()
    assert summary["loss"] == "contrastive" and summary["kappa"] is None and summary["kappa_source"] == "none"
    store.save_scores(lay.scores("wiki20"), {"validation_label": np.array([1, 0]), "validation_mean": np.array([.1, .2]),
                                             "test_label": np.array([0]), "test_mean": np.array([.3])}, {"x": 1})
    assert store.load_scores(lay.scores("wiki20"), ("mean",))["test_mean"].tolist() == [0.3]
    assert store.read_json(str(tmp_path / "scores" / "wiki20.json")) == {"x": 1}
    leftovers = [f for _, _, fs in os.walk(tmp_path) for f in fs if ".tmp" in f]
    assert leftovers == []


def test_an_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "x.npz"

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(KeyboardInterrupt):
        store.write_npz(str(target), a=np.zeros(3))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("case", ["missing", "not-npz", "wrong-keys", "bad-values", "vocab-mismatch"])
def test_bad_df_files(tmp_path, case):
    path = tmp_path / "df.npz"
    if case == "not-npz":
        path.write_text("hello")
    elif case == "wrong-keys":
        np.savez(path, x=np.zeros(2))
    elif case == "bad-values":
        np.savez(path, df=np.array([5, 1]), n_docs=np.int64(3))
    elif case == "vocab-mismatch":
        store.save_df(str(path), [1, 1], 3)
    with pytest.raises(InputError) as err:
        store.load_df(str(path), vocab_size=3)
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)


def test_bad_pairs_model_scores_and_vocab(tmp_path):
    p = tmp_path / "p.npz"
    np.savez(p, a=np.zeros((2, 3), np.int32), b=np.zeros((2, 3), np.int32), len_a=np.array([1, 9]),
             len_b=np.array([1, 1]), label=np.array([1, 0]))
    with pytest.raises(InputError, match=r"p\.npz: lengths must lie in 0\.\.3"):
        store.load_pairs(str(p))
    model = dict(weights=np.array([1.0]), history=[1.0], etas=[1.0], epochs=1, lam=0.0, distance="euclidean")
    for bad, match in ((dict(weights=np.array([np.nan]), loss="median", kappa=1.0, kappa_source="cv"), "finite"),
                       (dict(loss="median", kappa_source="cv"),
                        "a median model with kappa source cv: kappa must be a positive number .* got None"),
                       (dict(loss="median", kappa=np.nan, kappa_source="cv"), "must be a positive number .* got nan"),
                       (dict(loss="median", kappa=[1.0, 2.0], kappa_source="cv"), "kappa must be one number"),
                       (dict(loss="median", kappa=1.0, kappa_source="none"), "'none' is the contrastive loss's"),
                       (dict(loss="contrastive", kappa=1.0, kappa_source="none"), "the contrastive loss has no kappa"),
                       (dict(loss="contrastive", kappa_source="cv"), "so its source is 'none', not 'cv'"),
                       (dict(loss="median", kappa=1.0, kappa_source="guess"), "kappa_source must be one of"),
                       (dict(loss="hinge", kappa_source="none"), "loss must be one of contrastive, median, got 'hinge'"),
                       (dict(kappa=1.0), r"not a model file \(missing loss, kappa_source\)")):
        np.savez(tmp_path / "m.npz", **{**model, **bad})
        with pytest.raises(InputError, match=match):
            store.load_model(str(tmp_path / "m.npz"))
    np.savez(tmp_path / "s.npz", validation_label=[1, 0], validation_mean=[1.0], test_label=[1], test_mean=[1.0])
    with pytest.raises(InputError, match="validation scores of mean do not match"):
        store.load_scores(str(tmp_path / "s.npz"), ("mean",))
    (tmp_path / "v.txt").write_text("a\nb\na\n")
    with pytest.raises(InputError, match="not a vocabulary"):
        store.read_vocab(str(tmp_path / "v.txt"))
    with pytest.raises(InputError, match="vectors.npy: no such file"):
        store.load_vectors(str(tmp_path))


def test_atomic_file_commits_only_a_finished_block(tmp_path):
    target = tmp_path / "out.tsv"
    with pytest.raises(RuntimeError):
        with store.atomic_file(str(target)) as f:
            f.write("half a line")
            raise RuntimeError("stopped")
    assert os.listdir(tmp_path) == []
    with store.atomic_file(str(target)) as f:
        f.write("a\tb\n")
        assert not target.exists()  # nothing at the name until the block ends
    assert target.read_text() == "a\tb\n" and os.listdir(tmp_path) == ["out.tsv"]


def test_couples_files_round_trip(tmp_path):
    path = str(tmp_path / "c.jsonl")
    store.write_couples(path, [(["a", "#b"], ["c"])], [(["d"], ["e", "f"])])
    couples, labels = store.read_couples(path, labels=True)
    assert couples == [(["a", "#b"], ["c"]), (["d"], ["e", "f"])] and labels.tolist() == [1, 0]
    store.write_couples(str(tmp_path / "c.tsv"), [(["a", "#b"], ["c"])], [], fmt="tsv")
    assert (tmp_path / "c.tsv").read_text() == "1\ta #b\tc\n"
    (tmp_path / "bad.tsv").write_text("only one field\n")
    with pytest.raises(InputError, match=r"bad\.tsv: line 1: expected text_a<TAB>text_b"):
        store.read_couples(str(tmp_path / "bad.tsv"), labels=False)
