"""benchmarks/bench_second_call.py at a tiny size: it runs end to end (its `repro similarity` calls
with the default model and with a mapped shipped model, each cache written once and read after)
and writes its summary. Not its speed: a smoke run, so that a change that breaks the benchmark
fails here (issue 35)."""

from __future__ import annotations

import importlib.util
import json

from benchmarks import bench_second_call


def test_bench_second_call_runs_at_a_tiny_size(tmp_path):
    out = tmp_path / "second-call.json"
    assert bench_second_call.main(["--synthetic", "3000", "8", "--runs", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["words"] == 3000 and result["dim"] == 8 and result["target_s"] == 1.0
    assert [n.split("-")[0] for n in result["cache_entries"]] == ["map", "table"]
    assert result["second_call_s"] > 0 and result["uncached_s"] > 0 and result["first_call_s"] > 0
    assert len(result["second_runs_s"]) == len(result["uncached_runs_s"]) == 1
    float(result["score"])  # every call printed this one score
    # the default model with no files: WordLlama's token space where the tokens extra is installed
    installed = all(importlib.util.find_spec(m) for m in ("tokenizers", "safetensors", "wordllama"))
    if installed:  # its first call wrote the wordfreq counts of the token space; the others read them
        assert result["default_call_s"] > 0 and result["default_first_call_s"] > 0 and result["default_uncached_s"] > 0
        assert [n.split("-")[0] for n in result["default_cache_entries"]] == \
            ["tokenfacts", "tokenpieceids", "tokenpieces", "wfcounts"]
        assert isinstance(result["within_target"], bool)
        float(result["default_score"])
        cli = result["cli"]  # issue 60: each command's second call beside NumPy's import
        assert cli["numpy_s"] > 0 and cli["target_s"] == 0.3
        for c in ("encode", "similarity", "neighbours"):
            assert cli[c]["second_call_s"] > 0 and len(cli[c]["runs_s"]) == 1 and isinstance(cli[c]["within_target"], bool)
