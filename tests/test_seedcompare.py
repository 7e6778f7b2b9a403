"""experiments.seedcompare: a run against the published seeds, the three outcomes on small fixtures
(every cell inside the band and every verdict one the seeds gave; a cell outside; a verdict that
differs), and compare.report's conclusion last."""

from __future__ import annotations

import copy
import json
import os

from experiments import compare, seedcompare
from repro.evaluate import seedrows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def interval(low, high):
    return {"difference": (low + high) / 2, "low": low, "high": high, "p_value": 0.5}


def published() -> dict:
    """Three seeds of one column (Wikipedia 20 words) under one metric: the rows' numbers per seed
    and the three claims' verdicts, as experiments.seedtables writes them."""
    rows = {m: {"split_error": seedrows.spread(e), "js": seedrows.spread(j)}
            for m, e, j in (("mean", [0.140, 0.142, 0.144], [0.30, 0.31, 0.32]),
                            ("learned_median", [0.100, 0.104, 0.102], [0.45, 0.46, 0.44]),
                            ("learned_best", [0.090, 0.092, 0.094], [0.50, 0.50, 0.51]),
                            ("peer_best", [0.095, 0.094, 0.096], [0.48, 0.49, 0.49]))}
    verdicts = {"paper": {"row": "learned_median", "against": "mean", "word": "better", "one_run": ["better"] * 3},
                "peers": {"row": "learned_best", "against": "peer_best", "word": "level",
                          "one_run": ["level", "better", "level"]},
                "paper_vs_peers": {"row": "learned_median", "against": "peer_best", "word": "worse",
                                   "one_run": ["worse"] * 3}}
    return {"seeds": [0, 1, 2], "results": {"euclidean": {"wiki20": rows}}, "verdicts": {"euclidean": {"wiki20": verdicts}}}


def run_table(**moves) -> dict:
    """A run's table JSON (one column) with every number at its seeds' mean, and the one-run
    intervals: median better than mean, best better than the peers (a word seed 1 gave alone),
    median worse than the peers. ``moves``: {method: split error} to put elsewhere."""
    seeds = published()["results"]["euclidean"]["wiki20"]
    rows = {m: {"split_error": r["split_error"]["mean"], "js": r["js"]["mean"]} for m, r in seeds.items()}
    for m, e in moves.items():
        rows[m]["split_error"] = e
    rows["mean"]["boot_diff_vs_learned_median"] = interval(0.02, 0.06)  # mean minus median: the median better
    rows["learned_best"]["boot_diff_vs_peer_family"] = interval(-0.02, -0.001)
    rows["learned_median"]["boot_diff_vs_peer_family"] = interval(0.001, 0.02)
    return {"table": 1, "results": {"wiki20": rows}}


def test_a_run_inside_the_band_with_the_seeds_verdicts_agrees():
    out = seedcompare.lines(run_table(), published(), "results/seeds_table1.json", "out/table1.json")
    assert out[1] == "  cells: all 8 inside the seeds' 99% band (where one more seed falls)"
    assert out[2] == "  verdicts: all 3 as the published seeds give them"
    assert out[-1] == "Table 1: the run agrees with the published results."


def test_a_cell_outside_the_band_is_named_with_its_value_and_band():
    """One cell of 8 outside its 99% band is what chance gives (up to 1 of 8): named, and the run
    agrees; two are more than chance: the run is outside the spread."""
    assert seedcompare.chance_outside(8) == 1 and seedcompare.chance_outside(216) == 6
    assert seedcompare.chance_outside(0) == 0
    out = seedcompare.lines(run_table(mean=0.20), published(), "s.json", "r.json")
    lo, hi = seedrows.band([0.140, 0.142, 0.144], seedcompare.LEVEL, seedcompare.FLOOR["split_error"])
    assert out[1].startswith("  cells: 1 of 8 outside the seeds' 99% band: ")
    assert out[1].endswith(f", Euclidean, Mean, split error 20.00% (band {100 * lo:.2f}% to {100 * hi:.2f}%)")
    assert out[-1] == ("Table 1: the run agrees with the published results (1 of 8 cells outside the 99% band, "
                       "no more than chance leaves outside: up to 1).")
    out = seedcompare.lines(run_table(mean=0.20, peer_best=0.20), published(), "s.json", "r.json")
    assert out[1].startswith("  cells: 2 of 8 outside the seeds' 99% band: ")
    assert out[-1].startswith("Table 1: the run is outside the published seeds' spread in 2 cell(s)")
    assert "differ" not in out[-1]


def test_a_verdict_no_seed_gave_differs():
    run = run_table()
    run["results"]["wiki20"]["learned_median"]["boot_diff_vs_peer_family"] = interval(-0.03, -0.01)  # better here
    out = seedcompare.lines(run, published(), "s.json", "r.json")
    assert out[2].startswith("  verdicts: 1 of 3 differ from the published seeds': ")
    assert "paper_vs_peers: better here, published worse (one seed alone: worse in 3)" in out[2]
    assert out[-1] == "Table 1: the run's verdicts differ from the published results (named above)."


def checked(word: str, one_run: list, seeds=(5, 6, 7)) -> dict:
    """A check set of published(): the same column over other seeds, its "peers" claim reading ``word``."""
    other = copy.deepcopy(published())
    other["seeds"] = list(seeds)
    other["verdicts"]["euclidean"]["wiki20"]["peers"].update(word=word, one_run=one_run)
    return other


def test_a_check_set_that_reads_a_claim_otherwise_makes_it_depend_on_the_seed():
    """published() reads learned_best against peer_best "level" (one run alone: level, better,
    level). A check set that reads it "worse" makes the published word "depends on the seed", and a
    run's "worse", which only a check seed gave alone, then agrees; without the check set it differs."""
    run = run_table()
    run["results"]["wiki20"]["learned_best"]["boot_diff_vs_peer_family"] = interval(0.001, 0.02)  # worse here
    alone = seedcompare.lines(run, published(), "s.json", "r.json")
    assert "peers: worse here, published level (one seed alone: level in 2, better in 1)" in alone[2]
    checks = [("seeds-5-7", checked("worse", ["worse", "worse", "level"]))]
    out = seedcompare.lines(run, published(), "s.json", "r.json", checks)
    assert out[2] == "  verdicts: all 3 as the published seeds give them"
    assert out[-1] == "Table 1: the run agrees with the published results."
    # a run word no seed of any set gave still differs, against the word over every set
    checks = [("seeds-5-7", checked("level", ["level"] * 3))]
    run["results"]["wiki20"]["learned_best"]["boot_diff_vs_peer_family"] = interval(0.001, 0.02)
    out = seedcompare.lines(run, published(), "s.json", "r.json", checks)
    assert "peers: worse here, published level (one seed alone: level in 5, better in 1)" in out[2]


def test_claims_and_cells_over_check_sets():
    v = {"word": "worse", "difference": 0.0056}
    assert seedcompare.claim_across(v, []) == ("worse", [])
    assert seedcompare.claim_across(v, [("seeds 5–9", None)]) == ("worse", [])  # a set without the claim
    same = ("seeds 5–9", {"word": "worse", "difference": 0.004})
    assert seedcompare.claim_across(v, [same]) == ("worse", [])
    other = ("seeds 5–9", {"word": "level", "difference": 0.0026})
    assert seedcompare.claim_across(v, [same, other]) == ("depends on the seed", [("seeds 5–9", "level", 0.0026)])
    assert seedcompare.across_cell(v, [same], "seeds 0–4") == "worse (+0.56)"
    assert seedcompare.across_cell(v, [other], "seeds 0–4") == \
        "depends on the seed (seeds 0–4: worse, +0.56; seeds 5–9: level, +0.26)"
    assert seedcompare.across_cell({"word": "level", "difference": 0.02}, [], "s", scale=1.0) == "level (+0.02)"
    assert seedcompare.seeds_label([5, 6, 7, 8, 9]) == "seeds 5–9"
    assert seedcompare.seeds_label([0, 2, 7]) == "seeds 0, 2, 7"
    assert seedcompare.seeds_label([3]) == "seed 3" and seedcompare.seeds_label([0, 1]) == "seeds 0, 1"
    prov = {"seeds": [0, 1, 2, 3, 4], "commit": "f4277ee5824687e0f3a2336092b97a82ec20d622", "hardware": {"cpu": "AMD EPYC"},
            "kernels": {"blas": [{"architecture": "Sandybridge"}, {"architecture": "Sandybridge"}]}}
    assert seedcompare.set_label(prov) == "seeds 0–4 (AMD EPYC, OpenBLAS Sandybridge, commit f4277ee58246)"
    assert seedcompare.set_label({"seeds": [5]}) == "seed 5"
    haswell = dict(prov, kernels={"blas": [{"architecture": "Haswell"}]}, hardware={"cpu": "Intel Xeon"})
    assert seedcompare.short_label(prov, haswell) == "seeds 0–4, OpenBLAS Sandybridge, AMD EPYC"
    assert seedcompare.short_label(dict(prov, hardware={"cpu": "Intel Xeon"}), haswell) == "seeds 0–4, OpenBLAS Sandybridge"
    assert seedcompare.short_label(dict(haswell, seeds=[5, 6, 7, 8, 9]), haswell) == "seeds 5–9"
    assert seedcompare.short_label(haswell, haswell) == "seeds 0–4, another run"


def test_check_sets_are_read_by_folder_name(tmp_path):
    assert seedcompare.check_sets(str(tmp_path), "seeds_table1.json") == []
    for name, word in (("seeds-5-7", "worse"), ("kernel-0-2", "level")):
        (tmp_path / "checks" / name).mkdir(parents=True)
        (tmp_path / "checks" / name / "seeds_table1.json").write_text(json.dumps(checked(word, [word] * 3)))
    (tmp_path / "checks" / "empty").mkdir()
    sets = seedcompare.check_sets(str(tmp_path), "seeds_table1.json")
    assert [n for n, _ in sets] == ["kernel-0-2", "seeds-5-7"]
    assert sets[1][1]["verdicts"]["euclidean"]["wiki20"]["peers"]["word"] == "worse"
    assert seedcompare.check_sets(str(tmp_path), "seeds_table2.json") == []


def test_the_seed_tables_render_the_check_sets():
    """experiments.seedtables: a claim a check set reads otherwise "depends on the seed" in the
    tables' verdicts and the findings, and each check set gets its count line."""
    from experiments import seedtables

    pub = json.loads(open(os.path.join(ROOT, "results", "seeds_table1.json"), encoding="utf-8").read())
    other = copy.deepcopy(pub)
    other["seeds"] = [5, 6, 7, 8, 9]
    v = other["verdicts"]["cosine"]["wikivar"]["paper"]
    v.update(word="better" if v["word"] != "better" else "worse", difference=-0.001)
    plain = seedtables.markdown(1, pub, pub["seeds"])
    md = seedtables.markdown(1, pub, pub["seeds"], [("seeds-5-9", other)])
    assert plain.count("depends on the seed (seeds 0–4: ") == 0
    assert md.count("depends on the seed (seeds 0–4: ") == 1 and f"seeds 5–9: {v['word']}, -0.10)" in md
    assert "- seeds 5–9 (" in md and "17 of 18 verdicts read the same; differ: Wikipedia, variable length, cosine, paper: " in md
    same = seedtables.markdown(1, pub, pub["seeds"], [("same", copy.deepcopy(pub))])
    assert "18 of 18 verdicts read the same." in same
    assert seedtables.findings(1, pub, pub["seeds"], [("seeds-5-9", other)]).count("depends on the seed (seeds 0–4: ") == 1


def test_a_column_without_clusters_enough_reads_not_ranked():
    run = run_table()
    for r in run["results"]["wiki20"].values():
        r["boot_units"] = {"related": 5, "unrelated": 100, "effective_clusters": 3.0}
    assert seedcompare.run_word(run["results"]["wiki20"], "learned_best", "peer_best") == "not ranked"


def test_compare_report_ends_with_the_seeds_conclusion(tmp_path):
    run_dir, committed = tmp_path / "out", tmp_path / "results"
    run_dir.mkdir(), committed.mkdir()
    table = run_table()
    table["results_cosine"] = {}
    ref = copy.deepcopy(table)
    ref["results"]["wiki20"]["mean"]["split_error"] = 0.1405  # the committed seed-0 run: other digits
    for d, t in ((run_dir, table), (committed, ref)):
        (d / "table1.json").write_text(json.dumps(t))
        (d / "table1.md").write_text(f"| Method | x |\n|---|---:|\n| Mean | {100 * t['results']['wiki20']['mean']['split_error']:.2f}% |\n")
    (committed / "seeds_table1.json").write_text(json.dumps(published()))
    lines = compare.report(str(run_dir), str(committed), "table1")
    assert lines[0].startswith("Bit for bit, against the committed run (seed 0; ")
    assert "other digits than the committed run" in lines[1] and not any(" differs" in x for x in lines)
    assert lines[-1] == "Table 1: the run agrees with the published results."


def test_the_sts_rows_over_seeds_of_one_run_repeated_are_that_runs_numbers():
    """experiments.seedtables.sts_evaluate on the committed sts.json taken as two seeds: the means
    are its numbers, the spreads 0, the words the one-run intervals' (make sts's JSON as it is)."""
    import os

    from experiments import seedtables

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "results", "sts.json"), encoding="utf-8") as f:
        prov = json.load(f)
    sts = seedtables.sts_evaluate([prov, prov])
    learned = prov["results"]["learned_best"]["with"]["test"]
    assert sts["rows"]["learned_best"]["mean"] == learned["pearson"] and sts["rows"]["learned_best"]["sd"] == 0.0
    d = learned["vs_dev_best_peer"]
    alone = "better" if d["low"] > 0 else "worse" if d["high"] < 0 else "level"
    assert sts["verdicts"]["peers"]["word"] == alone and sts["verdicts"]["peers"]["difference"] == d["difference"]
    assert sts["rows"]["wordllama"]["mean"] == prov["tokens"]["results"]["mean"]["test_pearson"]
    chosen = prov["chosen_on_dev"]["learned_best"]
    assert sts["chosen"]["learned_best"] == [(f"{chosen['map']}-{chosen['distance']}", 2)]
    assert "STS Benchmark test over 2 seeds (0, 1)" in seedtables.sts_markdown(sts, [0, 1])


def test_the_encoders_default_over_seeds_is_one_model_and_only_where_every_seed_scored_it():
    """The shipped default against WordLlama's pooling (make sts's tokens.default_vs_mean): the same
    numbers in every seed, its word from every seed's paired interval; absent in one seed, no row."""
    import copy
    import os

    from experiments import seedtables

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "results", "sts.json"), encoding="utf-8") as f:
        prov = json.load(f)
    prov["tokens"].pop("default_vs_mean", None)
    above, level = copy.deepcopy(prov), copy.deepcopy(prov)
    above["tokens"]["default_vs_mean"] = {"difference": 0.4, "low": 0.1, "high": 0.7, "p_value": 0.01, "pearson": 77.9}
    level["tokens"]["default_vs_mean"] = {"difference": 0.4, "low": -0.1, "high": 0.9, "p_value": 0.2, "pearson": 77.9}
    sts = seedtables.sts_evaluate([above, above])
    assert sts["verdicts"]["encoder"]["word"] == "better" and sts["verdicts"]["encoder"]["difference"] == 0.4
    assert sts["rows"]["encoder_default"]["mean"] == 77.9 and sts["rows"]["encoder_default"]["sd"] == 0.0
    assert seedtables.sts_evaluate([level, level])["verdicts"]["encoder"]["word"] == "level"
    assert seedtables.sts_evaluate([above, level])["verdicts"]["encoder"]["word"] == "depends on the seed"
    assert "shipped default" in seedtables.sts_markdown(sts, [0, 1])
    alone = seedtables.sts_evaluate([above, prov])
    assert "encoder" not in alone["verdicts"] and "encoder_default" not in alone["rows"]
    assert "shipped default" not in seedtables.sts_markdown(alone, [0, 1])


def test_two_sets_of_seeds_verdict_by_verdict(capsys, tmp_path):
    """between_sets pairs each claim of two seed tables; the Markdown marks the one that differs
    and counts; the command refuses two different tables."""
    import pytest

    from repro.errors import InputError

    a = published()
    for v, d in zip(a["verdicts"]["euclidean"]["wiki20"].values(), (-0.03, -0.004, 0.01)):
        v["difference"] = d
    b = copy.deepcopy(a)
    b["seeds"] = [5, 6, 7]
    b["verdicts"]["euclidean"]["wiki20"]["paper_vs_peers"].update(word="level", difference=0.004)
    rows = seedcompare.between_sets(a, b)
    assert [r[2] for r in rows] == ["paper", "peers", "paper_vs_peers"]
    assert rows[2] == ("euclidean", "wiki20", "paper_vs_peers", "worse", "level", 0.01, 0.004)
    md = seedcompare.between_sets_markdown(a, b)
    assert md.count("| differs |") == 1 and "worse (+1.00) | level (+0.40) | differs |" in md
    assert md.endswith("2 of 3 verdicts read the same.") and "(seeds 5, 6, 7)" in md
    assert seedcompare.between_sets(a, {"verdicts": {}}) == []
    with pytest.raises(InputError, match="not table 1"):
        seedcompare.main([_write(tmp_path / "a1.json", a, 1), _write(tmp_path / "b2.json", b, 2)])
    assert seedcompare.main([_write(tmp_path / "a1.json", a, 1), _write(tmp_path / "b1.json", b, 1)]) == 0
    assert "2 of 3 verdicts read the same." in capsys.readouterr().out


def _write(path, table: dict, number: int) -> str:
    path.write_text(json.dumps(dict(table, table=number)))
    return str(path)
