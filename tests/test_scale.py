"""The paper-scale benchmarks' pieces (make scale): synthetic dumps, measurement, analysis, scoring at the
paper's vocabulary, SCALE.md."""

from __future__ import annotations

import bz2
import json
import os
import sys

import numpy as np
import pytest

from benchmarks import bench_scale, measure, scale_doc, scoring_scale, synthdump
from repro import settings
from repro.evaluate import scoring
from repro.data.wikipedia import wikidump


@pytest.fixture(scope="module")
def two_copies(tmp_path_factory):
    pytest.importorskip("gensim")  # the pages come from gensim's shipped dump
    out = tmp_path_factory.mktemp("synth")
    summary = synthdump.make(2, str(out), ovos=None, seed=0, workers=2)
    par = out / "paragraphs.tsv"
    wikidump.extract(str(out / synthdump.DUMP_NAME), str(par), workers=2)
    serial = out / "serial.tsv"
    wikidump.extract(wikidump.default_dump(), str(serial), workers=1)
    return out, summary, par.read_text().splitlines(), serial.read_text().splitlines()


def test_copy_zero_is_the_source_dump_and_the_index_names_every_stream(two_copies):
    out, summary, lines, serial = two_copies
    assert lines[:len(serial)] == serial  # copy 0 is gensim's dump, paragraph for paragraph
    index = bz2.open(out / synthdump.INDEX_NAME, "rt").read().splitlines()
    assert len(index) == 2 * summary["pages_per_copy"]
    offsets = sorted({int(x.split(":", 1)[0]) for x in index})
    data = (out / synthdump.DUMP_NAME).read_bytes()
    assert all(data[o:o + 3] == b"BZh" for o in offsets) and len(data) == summary["compressed_bytes"]
    assert len(offsets) == 2 * -(-summary["pages_per_copy"] // synthdump.PAGES_PER_STREAM)
    ids = [int(x.split(":")[1]) for x in index]
    assert len(set(ids)) == len(ids)  # distinct page ids, and distinct titles
    assert len({x.split(":", 2)[2] for x in index}) == len(index)


def test_the_second_copy_brings_the_words_heaps_law_asks_for(two_copies):
    out, summary, lines, serial = two_copies
    first = {t for line in serial for t in line.split("\t")[1].split()}
    second = {t for line in lines[len(serial):] for t in line.split("\t")[1].split()}
    assert len(first) == summary["words_1x"]
    new = second - first
    wanted = round(summary["words_1x"] * (2 ** summary["heaps_beta"] - 1))
    assert abs(summary["renamed_words_wanted"] - wanted) <= 2 and 0.3 < summary["heaps_beta"] < 0.9  # beta is rounded
    assert summary["renamed_words"] == min(summary["renamed_words_wanted"], summary["rare_pool"])
    wanted = summary["renamed_words"]
    suffix = synthdump.suffix(1)
    assert all(suffix in w for w in new)  # "word_x" -> "wordzqaab_x" too
    # every drawn word was renamed wherever it occurs (give or take the forms joined to digits or other words)
    assert abs(len(new) - wanted) <= 0.03 * wanted
    # the renamed words were rare: the token count of the copy is the first copy's
    assert sum(len(x.split("\t")[1].split()) for x in lines[len(serial):]) == \
        sum(len(x.split("\t")[1].split()) for x in serial)


def test_suffixes_are_distinct_letters():
    tags = {synthdump.suffix(c) for c in range(2000)}
    assert len(tags) == 2000 and all(t.isalpha() and t.islower() for t in tags)


def test_heaps_beta_recovers_a_known_exponent():
    # tokens whose k-th new word appears at position k^2: V(N) = sqrt(N), beta = 0.5
    n = 40_000
    tokens = [str(int(np.sqrt(i))) for i in range(n)]
    assert synthdump.heaps_beta(tokens) == pytest.approx(0.5, abs=0.02)


def test_measured_reports_peak_memory_and_fails_in_one_line(tmp_path):
    m = measure.measured([sys.executable, "-c", "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"], "alloc")
    assert m["max_process_rss_mb"] >= 200 and m["seconds"] > 0
    with pytest.raises(SystemExit, match="boom: exit code 3"):
        measure.measured([sys.executable, "-c", "raise SystemExit(3)"], "boom")


def _run(stages: dict, counts: dict) -> dict:
    return {"stages": {k: {"seconds": s, "max_process_rss_mb": m, "tree_rss_mb": m} for k, (s, m) in stages.items()},
            "counts": counts}


def fake_scale() -> dict:
    """Three sizes with hand-made numbers: RSS = 100 MB + 1 kB per couple for the couples stage."""
    runs = {}
    for k in (1, 10, 30):
        c = {"couples": 1000 * k, "train_couples": 300 * k, "scored_couples": 700 * k, "vocabulary": 5000 + 100 * k,
             "tokens": 60_000 * k, "related": 500 * k, "search_epochs_max": 30, "final_epochs": 10,
             "contrastive_epochs": 50, "compressed_bytes": 10 ** 6 * k, "xml_bytes": 4 * 10 ** 6 * k,
             "paragraphs": 100 * k}
        stages = {"extraction_1_worker": (2.0 * k, 40), "extraction": (1.0 * k, 30 + k / 10), "word2vec": (3.0 * k, 200 + k),
                  "df": (1.0, 50), "couples": (0.5 * k, 100 + 1000 * k * 1024 / 2 ** 20),
                  "kappa_search": (10.0 * k, 800 + k), "contrastive": (2.0 * k, 400 + k), "scoring": (5.0 * k, 1600 + 2 * k)}
        runs[k] = _run(stages, c)
    return {"sizes": [1, 10, 30], "runs": {f"{k}x": v for k, v in runs.items()},
            "analysis": bench_scale.analyse([1, 10, 30], runs), "dumps": {
                f"{k}x": {"compressed_bytes": 10 ** 6 * k, "heaps_beta": 0.6, "words_expected": 5000 * k, "words_heaps": 5000 * k}
                for k in (1, 10, 30)},
            "cpus": 2, "cpu": "test", "w2v_workers": 2, "commit": "abcdef0" * 6, "python": "3", "seed": 0, "minutes": 1}


def test_analysis_fits_the_bytes_per_couple_and_checks_streaming():
    s = fake_scale()
    a = s["analysis"]
    assert a["per_couple"]["couples"]["bytes_per_unit"] == pytest.approx(1024, rel=1e-6)
    assert a["per_couple"]["couples"]["intercept_mb"] == pytest.approx(100, abs=0.1)
    assert a["growth"]["extraction"]["10x"] == pytest.approx(31 / 30.1, abs=1e-3)
    assert a["streaming_ok"] and a["extraction_speedup"]["10x"] == 2.0


def fake_results(tmp_path, cpus: int, extraction: float, w2v: float, docfreq: float):
    """A results folder: fake_scale() and one box's rates (tokens per XML byte 0.1, bz2 ratio 4)."""
    results = tmp_path / "results"
    results.mkdir()
    (results / "scale.json").write_text(json.dumps(fake_scale()))
    rates = {"cpus": cpus, "cpu": "box", "copies": 30, "commit": "1234567" * 6, "python": "3", "tokens": 10 ** 6,
             "xml_bytes": 10 ** 7, "compressed_bytes": 2.5 * 10 ** 6,
             "extraction": {"1": {"xml_mb_per_s": 5.0}, str(cpus): {"xml_mb_per_s": extraction}},
             "word2vec": {str(cpus): {"tokens_per_s": w2v}}, "docfreq": {"tokens_per_s": docfreq, "workers": cpus},
             "couples": {"tokens_per_s": 10 ** 6, "tokens_per_related": 50.0}}
    (results / f"rates-{cpus}cpu.json").write_text(json.dumps(rates))
    return results


def test_scale_doc_projects_from_the_rates_and_names_the_bounding_stage(tmp_path):
    results = fake_results(tmp_path, cpus=16, extraction=80.0, w2v=10 ** 6, docfreq=4 * 10 ** 6)
    out = tmp_path / "SCALE.md"
    assert scale_doc.main(["--results", str(results), "--out", str(out), "--dump-gb", "1"]) == 0
    text = out.read_text()
    # 1 GB of bz2 at the synthetic ratio 4 is 4 GB of XML: 50 s at 80 MB/s; 0.4G tokens at 1M/s: 400 s
    assert "| extraction | 4 GB of XML | 80.0 MB/s (16 workers) |" in text and "| 50 s |" in text
    assert "| word2vec | 0.40G tokens, 1 epoch |" in text and "| 7 min |" in text
    assert "**scoring** bounds the total" in text  # 3 x 6.8M couples at 140 couples/s
    assert "| scoring | 3 columns x 6.8M couples | 140 couples/s after 0 s |" in text
    assert "not measured on a GPU" in text and "Streaming stages" in text


def test_scale_doc_with_the_gpu_and_cpu_training_measurements(tmp_path):
    results = fake_results(tmp_path, cpus=2, extraction=9.0, w2v=10 ** 5, docfreq=10 ** 6)
    fit = {"couples": 3_000_000, "vocab": 2_200_000, "dim": 400, "form": "QuadForm", "form_asked": "quadratic",
           "quad_bytes": 10.8e9, "gram_budget": 4e9, "kappa_runs": 50, "grid": [10.0] * 10, "epochs": [1, 5],
           "prepare_s": 4.0, "search_s": {"1": 5.0, "5": 7.0}, "final_s": {"1": 2.0, "5": 4.0}, "search_epoch_s": 0.5,
           "final_epoch_s": 0.5, "host_peak_mb": {"end": 8000.0}, "device_peak_mb": 24000.0, "backend": "gpu",
           "accelerator": "GPU X", "jax": "0", "commit": "7654321" * 6, "cpu": "box"}
    (results / "fit-scale-gpu.json").write_text(json.dumps(fit))
    (results / "fit-scale-cpu.json").write_text(json.dumps(dict(fit, form="Gathered", form_asked="auto", epochs=[1],
                                                                grid=[320.0], host_peak_mb={"end": 30000.0})))
    (results / "fit-scale-cpu-quadratic.json").write_text(json.dumps(
        {"failed": 137, "killed": True, "couples": 3_000_000, "vocab": 2_200_000, "dim": 400, "form_asked": "quadratic",
         "quad_bytes": 10.8e9, "memory_gb": 23.5, "commit": "89abcde" * 6, "cpu": "here"}))
    out = tmp_path / "SCALE.md"
    assert scale_doc.main(["--results", str(results), "--out", str(out)]) == 0
    text = out.read_text()
    assert "killed, for memory on this 23.5 GB box" in text and "(quadratic, here" not in text
    # 8x the 2 cores' rates, said so; the search: 5 s + 29 epochs x 0.5 s; two runs: 2 x 2 s + 58 x 0.5 s
    assert "scaled linearly from 2 to 16 cores (an assumption)" in text
    assert "(`--form auto`)" in text and "over 24 GB" in text and "device peak 23.44 GB" in text
    training = next(line for line in text.splitlines() if line.startswith("| training |"))
    assert training.endswith(f"| {round(2 * (4.0 + 5.0 + 29 * 0.5 + 2 * 2.0 + 58 * 0.5) / 60)} min |")


def test_the_synthetic_table_is_written_by_blocks_with_unit_rows_and_reused(tmp_path, monkeypatch):
    monkeypatch.setattr(scoring_scale, "BLOCK", 7)
    path = str(tmp_path / "t.npy")
    table = scoring_scale.write_table(path, 20, 5, seed=1)
    assert isinstance(table, np.memmap) and table.shape == (20, 5) and table.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(table, axis=1), 1.0, rtol=1e-6)
    first, mtime = np.array(table), os.path.getmtime(path)
    assert np.array_equal(scoring_scale.write_table(path, 20, 5, seed=1), first) and os.path.getmtime(path) == mtime
    assert not np.array_equal(scoring_scale.write_table(path, 20, 5, seed=2), first)  # another seed: rewritten


def test_synthetic_couples_have_the_wikivar_shape():
    p = scoring_scale.couples(1000, 50, seed=0)
    cfg = settings.setting("wikivar")
    assert p.a.shape == (1000, cfg.width) and p.label.sum() == 500
    for rows, lens in ((p.a, p.len_a), (p.b, p.len_b)):
        assert lens.min() == cfg.min_n and lens.max() == cfg.max_n
        live = np.arange(cfg.width)[None, :] < lens[:, None]
        assert (rows[live] >= 1).all() and (rows[live] < 50).all() and (rows[~live] == 0).all()


def test_one_row_measured_scores_what_the_scoring_surface_scores(tmp_path):
    path = str(tmp_path / "t.npy")
    scoring_scale.write_table(path, 300, 8)
    r = scoring_scale.measure_row("mean_idf", path, 200, 50, 20)
    assert (r["vocab"], r["dim"], r["couples"], r["scorings"], r["grid_weightings"]) == (200, 8, 50, 1, 0)
    assert r["couples_per_s"] == pytest.approx(50 / r["score_s"], rel=1e-2)
    counts, idf = scoring_scale.corpus(4, docs=8)
    np.testing.assert_allclose(idf, np.log(8 / np.array([8, 4, 2, 2])))  # df = floor(8 / rank)
    assert list(counts) == [1e9 + 1, 5e8 + 1, np.floor(1e9 / 3) + 1, 2.5e8 + 1]
    encs, facts = scoring_scale.row_encodings("learned_median", scoring.Column(np.ones((5, 2), np.float32)), counts, idf)
    assert encs[0][0].encoding.kind == "rank" and facts == {"grid_weightings": 0}


def test_a_peer_row_counts_its_grid_and_choices(tmp_path):
    path = str(tmp_path / "t.npy")
    scoring_scale.write_table(path, 400, 8)
    r = scoring_scale.measure_row("sif", path, 400, 30, 40)
    assert r["grid_weightings"] == 3  # a in 1e-4, 1e-3, 1e-2
    assert 1 <= r["scorings"] <= len(r["chosen"]) <= len(settings.TABLE_METRICS) and r["setup_s"] > 0


def _row(**k):
    base = {"table_s": 1.0, "device_s": 2.0, "setup_s": 0.0, "warmup_s": 3.0, "couples_per_s": 100.0, "scorings": 1,
            "grid_weightings": 0, "validation_couples": 10, "vocab": 100, "peak_rss_mb": 1000.0}
    return dict(base, **k)


def test_the_projection_adds_the_stages_the_grid_and_the_couples():
    rows = {"mean": _row(), "sif": _row(setup_s=10.0, grid_weightings=3, scorings=2, couples_per_s=400.0)}
    p = scoring_scale.projection(rows, 1000, 0.5)
    assert p["mean"] == pytest.approx(1 + 2 + 3 + 1000 / 100)
    # sif: 200 couples/s under one encoding; setup 10 s less 3 x 10 validation couples; 3 x 500 validation; 2 x 1000
    assert p["sif"] == pytest.approx(6 + (10 - 30 / 200) + 1500 / 200 + 2000 / 200)


def test_a_row_measured_at_two_smaller_vocabularies_is_projected_along_their_line():
    runs = [_row(vocab=100, setup_s=5.0, peak_rss_mb=300.0), _row(vocab=200, setup_s=7.0, peak_rss_mb=500.0)]
    r = scoring_scale.at_vocab(runs, 1000)
    assert (r["setup_s"], r["peak_rss_mb"], r["projected_from"]) == (23.0, 2100.0, [100, 200])
    assert scoring_scale.at_vocab(runs, 200)["projected_from"] is None


def test_scale_doc_takes_the_scoring_line_from_the_scoring_record(tmp_path):
    results = fake_results(tmp_path, cpus=16, extraction=80.0, w2v=10 ** 6, docfreq=4 * 10 ** 6)
    record = {"vocab": 2_200_000, "dim": 400, "table_gb": 3.52, "couples": 1000, "validation_couples": 10,
              "couples_shape": "synthetic", "backend": "cpu", "cpus": 2, "cpu": "box", "commit": "fedcba9" * 6,
              "rows": {"mean": _row(couples_per_s=6800.0), "zipf": _row(projected_from=[1, 2], couples_per_s=680.0)}}
    (results / "scoring-scale-cpu.json").write_text(json.dumps(record))
    out = tmp_path / "SCALE.md"
    assert scale_doc.main(["--results", str(results), "--out", str(out)]) == 0
    text = out.read_text()
    # a column: mean 6 s + 6.8M / 6,800 = 1,006 s; zipf 6 s + 10,000 s; three columns over 16 processes
    column = 6 + 1000 + 6 + 10_000
    line = next(x for x in text.splitlines() if x.startswith("| scoring |"))
    assert line.endswith(f"| {round(3 * column / 16 / 60)} min |") and "2.2M x 400 table" in line
    assert "| zipf (projected from 1 and 2 words) |" in text and f"**{column / 3600:.1f} h**" in text
    assert "The slowest row is **zipf**" in text and "not measured yet" in text
