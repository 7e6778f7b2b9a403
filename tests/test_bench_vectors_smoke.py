"""benchmarks/bench_vectors.py at a tiny size: the benchmark runs end to end (its `repro encode`
calls included) and writes its summary. Not its speed: a smoke run, so that a change of a default
that breaks `make bench` fails here (issue 35)."""

from __future__ import annotations

import json

from benchmarks import bench_vectors


def test_bench_vectors_runs_at_a_tiny_size(tmp_path):
    out = tmp_path / "vectors.json"
    assert bench_vectors.main(["--words", "60000", "--dim", "8", "--rounds", "1", "--repeats", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["folder"]["df_words"] == 50_000 and result["command"]["texts"] == 100
    assert result["command"]["folder_s"] > 0 and result["command"]["text_s"] > 0
