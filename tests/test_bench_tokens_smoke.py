"""benchmarks/bench_tokens.py at a tiny size: the benchmark runs end to end (WordLlama's own embed
built from its wheel, the default encoder on its token space, both checks) and writes its result.
Not its speed: a smoke run, so that a change that breaks `make bench` fails here (issue 34)."""

from __future__ import annotations

import json

import pytest

from repro.spaces import tokenspace

pytestmark = pytest.mark.skipif(not tokenspace.installed(), reason="extra tokens (the WordLlama wheel) not installed")


def test_bench_tokens_runs_at_a_tiny_size(tmp_path):
    from benchmarks import bench_tokens

    out = tmp_path / "tokens.json"
    assert bench_tokens.main(["--texts", "300", "--rounds", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["texts"] == 300 and result["tokens"] > 900 and result["target"] == 1.5
    assert result["same_ids_as_the_file_tokenizer"] and result["mean_check_max_abs_diff"] < 1e-4
    assert result["token_encode_speedup_vs_wordllama"] > 0 and len(result["seconds"]["ours"]) == 1


def test_the_texts_are_short_and_drawn_from_word_pieces():
    from benchmarks import bench_tokens

    space = tokenspace.load(tokenspace.WORDLLAMA)[2]
    texts = bench_tokens.make_texts(space, 50)
    assert texts == bench_tokens.make_texts(space, 50)  # seeded
    assert all(3 <= len(t.split()) <= 14 and t.replace(" ", "").isalpha() for t in texts)
