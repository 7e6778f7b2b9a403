"""The reduced ``make repro-check`` (experiments/reprocheck.py): every stage of a tiny chain, with
word2vec and with seeded synthetic vectors, has the SHA-256 committed in
results/repro-checksums.json; a difference names the first stage that differs."""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest

from experiments import reprocheck
from repro import store


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    return reprocheck.run_parts("reduced", reprocheck.PARTS, str(tmp_path_factory.mktemp("reprocheck")))


def test_every_stage_has_the_committed_checksums(reduced):
    committed = store.read_json(reprocheck.CHECKSUMS)["sizes"]["reduced"]
    for part in reprocheck.PARTS:
        assert list(reduced[part]) == list(reprocheck.STAGES)
        assert reprocheck.first_difference(committed[part], reduced[part]) is None, part


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


def test_a_check_against_other_checksums_fails_with_one_line_per_part(tmp_path, monkeypatch, reduced):
    bad = copy.deepcopy(reduced)
    bad["synthetic"]["weights"]["data/models/wiki20-median.npz"] = "f" * 64
    store.write_json(str(tmp_path / "sums.json"), {"sizes": {"reduced": bad}})
    monkeypatch.setattr(reprocheck, "run_parts", lambda size, parts, work: reduced)
    lines = reprocheck.check("reduced", reprocheck.PARTS, None, str(tmp_path / "sums.json"))
    assert lines == [f"synthetic (reduced): the first stage that differs is weights (data/models/wiki20-median.npz: "
                     f"{reduced['synthetic']['weights']['data/models/wiki20-median.npz'][:12]} here, ffffffffffff committed)"]
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
