"""benchmarks/bench_shards.py at a tiny size: it runs end to end (shards cut, the Dask searches equal to
the whole scan) and writes its result and its block. Not its speed (issue 58, item 6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import bench_shards


def test_bench_shards_runs_at_a_tiny_size(tmp_path):
    pytest.importorskip("dask")
    pytest.importorskip("wordllama")
    from repro import Encoder
    texts = [f"text number {i} about cats and markets" for i in range(300)]
    (tmp_path / "queries.txt").write_text("a cat\nthe markets fell\n")
    Encoder.pretrained().index(texts, str(tmp_path / "ix"))
    doc = tmp_path / "SEARCH.md"
    doc.write_text("a\n<!-- shards:start -->\nstale text\n<!-- shards:end -->\nb\n")
    out = tmp_path / "shards.json"
    assert bench_shards.main(["--index", str(tmp_path / "ix"), "--queries", str(tmp_path / "queries.txt"),
                              "--shards", "3", "--out", str(out), "--doc", str(doc)]) == 0
    result = json.loads(out.read_text())
    assert result["items"] == 300 and result["shards"] == 3 and result["queries"] == 2
    assert result["runs"]["threads"]["same_as_whole"] and result["runs"]["processes"]["same_as_whole"]
    assert len(list((tmp_path / "ix-shards").glob("shard-*-of-3.npy"))) == 3
    assert np.load(tmp_path / "ix-shards" / "shard-0-of-3.npy").shape == (100, 256)
    assert "cut into 3 `.npy` shards" in doc.read_text() and "stale text" not in doc.read_text()
