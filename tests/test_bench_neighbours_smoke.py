"""benchmarks/bench_neighbours.py at a tiny size: it runs end to end, both sides find the same
neighbours, and it writes the result that make bench's summary reads (tests/test_bench_summary.py). Not its
speed (issue 35)."""

from __future__ import annotations

import json

from benchmarks import bench_neighbours


def test_bench_neighbours_runs_at_a_tiny_size(tmp_path):
    out = tmp_path / "neighbours.json"
    assert bench_neighbours.main(["--items", "3000", "--queries", "301", "--dim", "16", "-k", "5",
                                  "--memory-queries", "50", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result["items"], result["queries"], result["dim"], result["k"]) == (3000, 301, 16, 5)
    assert result["ours_s"] > 0 and result["baseline_s"] > 0
    assert result["neighbours_speedup_vs_numpy"] == result["baseline_s"] / result["ours_s"]
    # float32 against float64 scores: the same neighbours but for a near tie, scores within float32 rounding
    assert result["same_ids_share"] >= 0.98 and result["largest_score_difference"] < 1e-5
    assert result["peak_memory"]["ours_mb"] > 0 and result["peak_memory"]["queries"] == 50

