"""The reduced ``make repro-check`` (experiments/reprocheck.py): every stage of a tiny chain, with
word2vec and with seeded synthetic vectors, that is promised bit for bit on this machine (its
OpenBLAS kernel and XLA code class: docs/REPRODUCIBILITY.md) has the SHA-256 committed in
results/repro-checksums.json; every stage reproduces in one process; a check names every stage
that differs and how far."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from experiments import reprocheck
from repro import pins
from repro.io import store


KEPT: dict = {}


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    return reprocheck.run_parts("reduced", reprocheck.PARTS, str(tmp_path_factory.mktemp("reprocheck")), keep=KEPT)


def test_every_promised_stage_has_the_committed_checksums(reduced):
    """Bit for bit where this machine's OpenBLAS kernel and XLA code class are the committed ones;
    the corpus, df and couples of both parts (and the synthetic vectors) on any machine."""
    committed = store.read_json(reprocheck.CHECKSUMS)
    skip = reprocheck.unpromised(committed["provenance"]["kernels"], pins.state())
    for part in reprocheck.PARTS:
        assert list(reduced[part]) == list(reprocheck.STAGES)
        assert {"paragraphs", "docfreq", "pairs"}.isdisjoint(skip[part])
        assert reprocheck.differences(committed["sizes"]["reduced"][part], reduced[part], tuple(skip[part])) == [], part


def test_every_stage_reproduces_bit_for_bit_on_one_machine(reduced, tmp_path):
    """The same-machine promise: the synthetic part run again gives every stage's SHA-256."""
    again = reprocheck.run_parts("reduced", ("synthetic",), str(tmp_path))
    assert again["synthetic"] == reduced["synthetic"]


def test_a_stage_that_is_not_promised_is_reported_by_how_far_it_is(reduced, tmp_path, monkeypatch):
    """Another code class and OpenBLAS kernel committed: no failure for the stages they move, a
    line each with the largest difference of its arrays, the tables as printed."""
    sums, ref = tmp_path / "sums.json", tmp_path / "ref.npz"
    moved = copy.deepcopy(reduced)
    moved["synthetic"]["weights"]["data/models/wiki20-median.npz"] = "f" * 64
    moved["synthetic"]["tables"]["results/table1.md"] = "e" * 64
    other = {"code_class": "xla:elsewhere ynn:none", "blas": [{"architecture": "Elsewhere"}]}
    store.write_json(str(sums), {"sizes": {"reduced": moved}, "provenance": {"kernels": other}})
    arrays = {f"reduced/synthetic/{k}": v for k, v in KEPT["synthetic"].items()}
    key = "data/models/wiki20-median.npz:weights"
    arrays[f"reduced/synthetic/{key}"] = KEPT["synthetic"][key] + np.float32(0.25)
    np.savez(ref, **arrays)

    def fake(size, parts, work, keep=None):
        keep.update(KEPT)
        return reduced
    monkeypatch.setattr(reprocheck, "run_parts", fake)
    notes: list = []
    assert reprocheck.check("reduced", ("synthetic",), None, str(sums), notes, str(ref)) == []
    assert f"synthetic (reduced): weights: max |difference| 0.25 ({key}) (not promised bit for bit: XLA code class " \
        f"{pins.code_class()} here, xla:elsewhere ynn:none committed)" in notes
    assert any(n.startswith("synthetic (reduced): tables: equal to the printed digits (not promised") for n in notes)
    assert any(n.startswith("synthetic (reduced): scores: the same SHA-256 (not promised") for n in notes)


def test_the_synthetic_part_has_the_corpus_and_vectors_of_its_seeds(reduced):
    full, synthetic = reduced["full"], reduced["synthetic"]
    assert full["paragraphs"] == synthetic["paragraphs"]  # the same synthetic corpus at this size
    assert full["word2vec"]["data/w2v/vocab.txt"] != synthetic["word2vec"]["data/w2v/vocab.txt"]  # gensim's order
    assert full["docfreq"] != synthetic["docfreq"]


def test_a_difference_names_the_first_stage_that_differs(reduced):
    want = copy.deepcopy(reduced["synthetic"])
    want["scores"]["data/scores/wiki20.npz"] = "0" * 64
    want["pairs"]["data/wikivar/test.npz"] = "1" * 64
    where = reprocheck.first_difference(want, reduced["synthetic"])
    assert where.startswith("pairs (data/wikivar/test.npz: ") and where.endswith(", 111111111111 committed)")
    del want["pairs"]["data/wikivar/test.npz"]
    assert reprocheck.first_difference(want, reduced["synthetic"]).endswith(" here, None committed)")


def test_a_models_digest_leaves_out_its_timings(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    np.savez(a, weights=np.arange(3.0), train_seconds=1.5)
    np.savez(b, weights=np.arange(3.0), train_seconds=2.5)
    assert reprocheck.digest(str(a)) == reprocheck.digest(str(b))
    np.savez(b, weights=np.arange(3.0) + 1e-12, train_seconds=1.5)
    assert reprocheck.digest(str(a)) != reprocheck.digest(str(b))


def test_a_check_names_every_promised_stage_that_differs(tmp_path, monkeypatch, reduced):
    bad = copy.deepcopy(reduced)
    bad["synthetic"]["weights"]["data/models/wiki20-median.npz"] = "f" * 64
    bad["synthetic"]["pairs"]["data/wiki20/test.npz"] = "a" * 64
    here = {"code_class": pins.code_class(), "blas": pins.state()["blas"]}  # everything promised
    store.write_json(str(tmp_path / "sums.json"), {"sizes": {"reduced": bad}, "provenance": {"kernels": here}})

    def fake(size, parts, work, keep=None):
        keep.update(KEPT)
        return reduced
    monkeypatch.setattr(reprocheck, "run_parts", fake)
    lines = reprocheck.check("reduced", reprocheck.PARTS, None, str(tmp_path / "sums.json"), reference=str(tmp_path / "no.npz"))
    mine = reduced["synthetic"]
    assert lines == [
        f"synthetic (reduced): pairs differs (data/wiki20/test.npz: {mine['pairs']['data/wiki20/test.npz'][:12]} here, "
        "aaaaaaaaaaaa committed; no reference arrays)",
        f"synthetic (reduced): weights differs (data/models/wiki20-median.npz: "
        f"{mine['weights']['data/models/wiki20-median.npz'][:12]} here, ffffffffffff committed; no reference arrays)"]
    assert reprocheck.check("small", ("full",), None, str(tmp_path / "sums.json")) == [
        f"full (small): no committed checksums in {tmp_path / 'sums.json'} (make repro-checksums)"]


def test_other_machines_table_names_the_stages_that_differ(tmp_path):
    """bench_bits' block for other machines: each run's stages split by whether their SHA-256 is
    the committed one."""
    from benchmarks import bench_bits

    ref = {"sizes": {"small": {"synthetic": {"pairs": {"a": "1"}, "weights": {"b": "2"}, "scores": {"c": "3"}}}}}
    rec = {"machine": {"cpu": "Xeon", "cpus": 16, "python": "3.12", "versions": {"numpy": "2.5"}},
           "runs": {"pinned": {"kernels": {"blas": [{"architecture": "SkylakeX"}], "numpy_dispatch_on": ["X86_V3"]},
                               "hashes": {"pairs": {"a": "1"}, "weights": {"b": "9"}, "scores": {"c": "3"}}}}}
    lines = bench_bits.other_block([rec], ref).splitlines()
    assert lines[2] == "| Xeon, 16 cores, Python 3.12, numpy 2.5 | pinned | SkylakeX | X86_V3 | pairs, scores | weights |"
    (tmp_path / "other-x.json").write_text(json.dumps(rec))
    (tmp_path / "pinned.json").write_text("{}")
    assert bench_bits.other_machines(str(tmp_path)) == [rec]
