"""repro.core.modelrecord: one record of a model, written by train_weights and Encoder.fit, read back
the same by every reader (the model loader, the tables' summary, ship_weights, Encoder.load), and
check_kappa, the one rule of a loss, its kappa and the kappa's source."""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile

import numpy as np
import pytest

from experiments import ship_weights, train_weights
from repro import settings
from repro.io import store
from repro.encode.encoder import Encoder
from repro.errors import run
from repro.core.modelrecord import KAPPA_SOURCES, ModelRecord, check_kappa

from synthetic import signal_pairs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def members(path: str) -> list[tuple[str, bytes]]:
    """The names and bytes of an .npz's members, in order (the zip's dates aside)."""
    with zipfile.ZipFile(path) as z:
        return [(n, z.read(n)) for n in z.namelist()]


def same_arrays(a: dict, b: dict) -> bool:
    """The same keys in the same order, each the same dtype, shape and values."""
    return list(a) == list(b) and all(np.asarray(a[k]).dtype == np.asarray(b[k]).dtype
                                      and np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)


@pytest.mark.parametrize("loss, kappa, source, match", [
    ("hinge", None, None, "loss must be one of contrastive, median, got 'hinge'"),
    ("median", 40.0, "guess", "kappa_source must be one of cv, given, model, none, got 'guess'"),
    ("contrastive", 40.0, None, "kappa: the contrastive loss has no kappa"),
    ("contrastive", None, "cv", "so its source is 'none', not 'cv'"),
    ("median", 40.0, "none", "'none' is the contrastive loss's"),
    ("median", None, "cv", "kappa must be a positive number for the median loss, got None"),
    ("median", 0.0, "given", "got 0.0"),
    ("median", -1.0, None, "got -1.0"),
    ("median", float("nan"), "model", "got nan"),
    ("median", float("inf"), "cv", "got inf"),
    ("median", "many", "given", "got many"),
])
def test_check_kappa_refuses(loss, kappa, source, match):
    with pytest.raises(ValueError, match=match):
        check_kappa(loss, kappa, source)


def test_check_kappa_accepts_and_the_names_come_from_settings():
    assert check_kappa("median", np.float32(160.0), "cv") == 160.0 and isinstance(check_kappa("median", 160, None), float)
    assert check_kappa("contrastive", None, "none") is None and check_kappa("contrastive") is None
    assert KAPPA_SOURCES == ("cv", "given", "model", "none") and settings.LOSSES == ("contrastive", "median")
    # a record is checked when made, and again when changed
    r = ModelRecord([1.0, 0.5], np.zeros(1, np.float32), np.zeros(1, np.float32), 1, "median", 40, "given", 1e-3,
                    "euclidean")
    assert r.kappa == 40.0 and r.weights.dtype == np.float32
    with pytest.raises(ValueError, match="the contrastive loss has no kappa"):
        dataclasses.replace(r, loss="contrastive", kappa_source="none")
    with pytest.raises(ValueError, match="weights: contains NaN"):
        dataclasses.replace(r, weights=np.array([np.nan]))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A model file written by experiments.train_weights (kappa by a 2-fold search over two
    values, whole clusters per fold) on a small synthetic data folder."""
    root = tmp_path_factory.mktemp("record")
    data = root / "data"
    table, pairs = signal_pairs(n_pairs=240, width=20, informative=3, vocab=120, dim=8, seed=4)
    words = [f"w{i}" for i in range(table.shape[0])]
    store.save_vectors(str(data / "w2v"), words, table)
    store.save_df(str(data / "df.npz"), np.ones(len(words), np.int64), 10)
    groups = np.arange(pairs.size) // 4  # clusters of four couples
    store.save_splits(str(data / "wiki20"), {"train": pairs}, {"what": "synthetic"}, groups={"train": groups})
    out = data / "models" / "wiki20-median.npz"
    assert run(train_weights.main,
               ["--data", str(data), "--setting", "wiki20", "--loss", "median", "--out", str(out), "--seed", "3",
                "--kappa-grid", "20,80", "--folds", "2", "--max-epochs", "3", "--batch-related", "20"]) == 0
    return root, str(out), pairs.size, (words, table)


def test_a_model_file_round_trips_through_every_reader(trained, tmp_path):
    root, path, n_pairs, vectors = trained
    record = store.load_model(path)
    # what train_weights wrote, field by field
    assert record.loss == "median" and record.kappa_source == "cv" and record.kappa in record.cv.grid
    assert record.seed == 3 and record.train_pairs == n_pairs and record.batch_related == 20 and record.lam == 1e-3
    grid = sorted({20.0, 80.0} | set(() if record.cv.extended is None else record.cv.extended.tolist()))
    assert record.cv.folds == "grouped" and record.cv.grid.tolist() == grid and record.cv.errors.shape == (len(grid), 2)
    assert 1 <= record.epochs <= 3 and record.history.shape == (record.epochs,) and record.weights.shape == (20,)
    assert list(record.seconds) == ["prepare", "kappa_cv", "train"] and record.kappa_model is None
    # the writer's arrays are the file's, member for member, and a rewrite changes no byte of them
    with np.load(path) as z:
        assert same_arrays(record.arrays(), {k: z[k] for k in z.files})
    store.save_model(str(tmp_path / "again.npz"), record)
    assert members(str(tmp_path / "again.npz")) == members(path)
    # the tables' summary
    summary = record.summary()
    assert summary["weights"] == record.weights.tolist() and summary["train_pairs"] == n_pairs
    assert summary["final_mean_loss"] == float(record.history[-1]) and summary["lambda"] == 1e-3
    assert summary["cv_mean_errors"] == record.cv.errors.mean(axis=1).tolist() and summary["cv_folds"] == "grouped"
    assert summary["cv_extended"] == [k for k in grid if k not in (20.0, 80.0)] and summary["cv_flat"] == record.cv.flat
    assert json.loads(json.dumps(summary)) == summary  # plain JSON values
    # ship_weights: the shipped weights and the record's fields beside them
    shipped = str(tmp_path / "weights" / "wiki20-median.npz")
    assert run(ship_weights.main, ["--model", path, "--out", shipped, "--setting", "wiki20"]) == 0
    weights, meta = store.load_weights(shipped)
    assert weights.tobytes() == record.weights.tobytes()
    assert {k: meta[k] for k in ("loss", "kappa", "kappa_source", "epochs", "lambda", "distance", "seed",
                                 "train_pairs")} == {
        "loss": "median", "kappa": record.kappa, "kappa_source": "cv", "epochs": record.epochs, "lambda": 1e-3,
        "distance": "euclidean", "seed": 3, "train_pairs": n_pairs}
    assert meta["source_sha256"] == store.sha256(path) and meta["n_max"] == 20
    # an encoder on the shipped weights uses exactly them
    enc = Encoder.pretrained(vectors, corpus=[["w1", "w2"]], weights_path=shipped)
    assert enc.weights_.tobytes() == record.weights.tobytes() and enc.record_ is None
    # --kappa-from takes the record's kappa and names its file in the new record
    out = str(tmp_path / "from.npz")
    assert run(train_weights.main,
               ["--data", str(root / "data"), "--setting", "wiki20", "--loss", "median", "--out", out,
                "--kappa-from", path, "--max-epochs", "2", "--batch-related", "20"]) == 0
    other = store.load_model(out)
    assert other.kappa == record.kappa and other.kappa_source == "model" and other.cv is None
    assert other.kappa_model == "wiki20-median.npz" and other.kappa_model_sha256 == store.sha256(path)
    assert list(other.arrays())[-3:] == ["kappa_model", "kappa_model_sha256", "kappa"]


def test_the_encoder_holds_the_same_record(trained, tmp_path):
    _, path, _, (words, table) = trained
    rng = np.random.default_rng(5)
    couples = [(list(rng.choice(words[:20], 3)) + list(rng.choice(words[20:], 5)),
                list(rng.choice(words, 8))) for _ in range(80)]
    for i in range(0, 80, 2):
        couples[i] = (couples[i][0], couples[i][0][:3] + list(rng.choice(words[20:], 5)))
    enc = Encoder((words, table), corpus=[list(rng.choice(words, 6)) for _ in range(50)], n_max=5)
    enc.fit(couples, [1 - i % 2 for i in range(80)], kappa=40.0, max_epochs=2, batch_related=10)
    record = enc.record_
    assert record.kappa == 40.0 and record.kappa_source == "given" and record.train_pairs == 80
    assert enc.provenance_["fit"] == {**record.summary(), "dropped": 0, "init": "paper", "choice": "paper",
                                      "validation_errors": None}
    enc.save(str(tmp_path / "enc.npz"))
    back = Encoder.load(str(tmp_path / "enc.npz"), vectors=(words, table))
    assert same_arrays(back.record_.arrays(), record.arrays())
    assert back.provenance_["fit"] == json.loads(json.dumps(enc.provenance_["fit"]))
    # and as a model file
    store.save_model(str(tmp_path / "m.npz"), back.record_)
    assert same_arrays(store.load_model(str(tmp_path / "m.npz")).arrays(), record.arrays())
    # a broken record in an encoder file is refused, naming the file
    arrays = dict(np.load(str(tmp_path / "enc.npz")))
    np.savez(str(tmp_path / "enc.npz"), **{**arrays, "fit_kappa_source": np.str_("none")})
    with pytest.raises(ValueError, match=r"enc\.npz: model record: kappa_source: 'none' is the contrastive loss's"):
        Encoder.load(str(tmp_path / "enc.npz"), vectors=(words, table))


def test_an_encoder_file_written_before_the_record_still_loads():
    """tests/data/encoder-before-record.* was written by Encoder.save at b09da92, before encoder
    files held the model record: an Encoder on the words, vectors and corpus below (n_max 3),
    fitted on 40 couples with kappa 40, 3 epochs, batches of 5 + 5."""
    words = [f"w{i}" for i in range(12)]
    matrix = np.arange(48, dtype=np.float32).reshape(12, 4) % 7 - 3.0
    path = os.path.join(ROOT, "tests", "data", "encoder-before-record.npz")
    enc = Encoder.load(path, vectors=(words, matrix))
    with np.load(path) as z:
        assert enc.weights_.tobytes() == z["weights"].tobytes() and enc.weights_.shape == (3,)
    assert enc.record_ is None  # no record in the file; its description is kept as it was
    assert enc.provenance_["fit"]["couples"] == 40 and enc.provenance_["fit"]["kappa"] == 40.0
    # it encodes as an encoder made now with the same weights and document frequencies
    corpus = [[words[i % 12], words[(3 * i + 1) % 12], words[(5 * i + 2) % 12]] for i in range(30)]
    fresh = Encoder((words, matrix), corpus=corpus, weights=enc.weights_)
    texts = [["w1", "w5", "w7"], ["w0", "w11"], ["w3"]]
    np.testing.assert_array_equal(enc.transform(texts), fresh.transform(texts))


def test_a_search_is_flat_where_its_means_lie_within_the_fold_spread():
    """CVRecord.flat: the spread of the mean held-out errors over the kappas against the standard
    deviation of the winner's fold errors (by hand)."""
    from repro.core.modelrecord import CVRecord
    folds = np.array([0.10, 0.12, 0.14])  # mean 0.12, standard deviation 0.02
    flat = CVRecord(np.array([10.0, 40.0]), np.stack([folds, folds + 0.015]), np.ones((2, 3), int), "grouped")
    steep = CVRecord(np.array([10.0, 40.0]), np.stack([folds, folds + 0.025]), np.ones((2, 3), int), "grouped")
    assert flat.flat and not steep.flat
