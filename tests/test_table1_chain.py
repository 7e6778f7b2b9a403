"""End to end: a tiny dump the test writes -> paragraphs -> word2vec -> df -> couples ->
weights -> scores -> Table 1 and figures, in seconds."""

import csv
import json

import numpy as np
import pytest

from experiments import figures, reprocheck, score, score_tokens, tables as table1, token_df, train_family, train_tokenfamily, train_weights
from repro.data.wikipedia import paragraphdf
from repro.data.wikipedia import embeddings
from repro.data.wikipedia import wikidump
from repro.data.wikipedia import wikipairs as pairs
from repro.evaluate import report
from repro.io import store
from repro.errors import run
from repro.io.layout import Layout
from repro.io.readmeblock import readme_markers
from repro.settings import LOSSES, METHODS
from tests.tinytokens import token_folder



#: The training options of every fit here: the reduced repro-check's (tests/test_reprocheck.py), whose
#: corpus this chain's dump holds (:func:`synthetic_dump`), so the word stages train the same programs
#: on the same shapes, which this chain, run after it (tests/conftest.py), loads instead of compiling
TRAIN = tuple(reprocheck.SIZES["reduced"]["train"])


def synthetic_dump(export_xml, folder) -> str:
    """A dump of the reduced repro-check's corpus (:func:`experiments.reprocheck.synthetic_paragraphs`:
    articles whose paragraphs mix topic words of their own with common words), one page per article:
    its paragraphs come out of the dump stage as they went in (checked below), so the word stages
    (couples, weights, family, scores) have the shapes of that check's word2vec part, and this chain,
    run after it (tests/conftest.py), loads their compiled programs instead of compiling its own (the
    token stages are on this chain's own token space)."""
    corpus = folder / "corpus.tsv"
    reprocheck.synthetic_paragraphs(str(corpus), *reprocheck.SIZES["reduced"]["corpus"])
    articles: dict[str, list[str]] = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        art, text = line.split("\t", 1)
        articles.setdefault(art, []).append(text + ".")
    return export_xml([(f"Article {art}", 0, 10 + i, False, "\n\n".join(paras))
                       for i, (art, paras) in enumerate(articles.items())])


@pytest.fixture(scope="module")
def chain(tmp_path_factory, make_export_xml):
    root = tmp_path_factory.mktemp("chain")
    data, results = root / "data", root / "results"
    dump = root / "dump.xml"
    dump.write_text(synthetic_dump(make_export_xml, root), encoding="utf-8")
    data.mkdir()
    para = data / "paragraphs.tsv"
    assert wikidump.main(["--dump", str(dump), "--out", str(para), "--workers", "1"]) == 0
    texts = [line.split("\t", 1)[1] for line in para.read_text(encoding="utf-8").splitlines()]
    assert texts == [line.split("\t", 1)[1] for line in (root / "corpus.tsv").read_text(encoding="utf-8").splitlines()]
    assert embeddings.main(["--paragraphs", str(para), "--out", str(data / "w2v"), "--epochs", "5",
                            "--dim", "16", "--min-count", "1", "--seed", "1"]) == 0
    assert paragraphdf.main(["--paragraphs", str(para), "--vocab", str(data / "w2v" / "vocab.txt"),
                         "--out", str(data / "df.npz"), "--workers", "1"]) == 0
    for setting in ("wiki20", "wikivar"):
        assert pairs.main(["--paragraphs", str(para), "--vocab", str(data / "w2v" / "vocab.txt"),
                           "--df", str(data / "df.npz"), "--setting", setting, "--seed", "0",
                           "--out", str(data / setting)]) == 0
        for loss in ("contrastive", "median"):
            train_weights.main(["--data", str(data), "--setting", setting, "--loss", loss,
                                "--out", str(data / "models" / f"{setting}-{loss}.npz"), *TRAIN])
        assert train_family.main(["--data", str(data), "--setting", setting, *TRAIN]) is None
    # "other" vectors: a GloVe text file holding every other corpus word, 8 dimensions
    words = (data / "w2v" / "vocab.txt").read_text().split()
    rng = np.random.default_rng(5)
    other = root / "other.txt"
    other.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) + "\n"
                             for w in words[::2]))
    for setting in ("wiki20", "wikivar", "other"):
        score.main(["--data", str(data), "--setting", setting,
                    "--out", str(data / "scores" / f"{setting}.npz"), "--other-vectors", str(other)])
    # the WordLlama rows on a tiny BPE token space the test trains on the corpus (words split into tokens)
    space = token_folder(root / "tokens", [line.split("\t", 1)[1] for line in para.read_text().splitlines()])
    assert token_df.main(["--paragraphs", str(para), "--out", str(data / "tokens" / "df.npz"), "--space", space]) is None
    for setting in ("wiki20", "wikivar"):
        assert train_tokenfamily.main(["--data", str(data), "--setting", setting, *TRAIN, "--space", space]) is None
        assert score_tokens.main(["--data", str(data), "--setting", setting, "--space", space,
                                  "--out", str(data / "tokens" / "scores" / f"{setting}.npz")]) is None
    # as make publish: the findings block in README.md, the table block in docs/RESULTS.md
    readme, details = root / "README.md", root / "docs" / "RESULTS.md"
    details.parent.mkdir()
    readme.write_text("before\n<!-- findings-table1:start -->\nold\n<!-- findings-table1:end -->\nafter\n")
    start, end = table1.markers(1)
    family_start, family_end = readme_markers("family-table1")
    details.write_text(f"before\n{start}\nold\n{end}\n{family_start}\n{family_end}\nafter\n")
    table1.main(["--data", str(data), "--results", str(results), "--readme", str(readme), "--readme", str(details)])
    figures.main(["--data", str(data), "--results", str(results)])
    return data, results, readme


def test_table_has_every_row_and_column(chain):
    _, results, _ = chain
    with open(results / "table1.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["method"] for r in rows] == list(METHODS)
    cols = [f"{s}_{m}" for s in ("wiki20", "wikivar", "other") for m in ("split_error", "js")]
    cols += [f"{s}_cosine_{m}" for s in ("wiki20", "wikivar", "other") for m in ("split_error", "js")]
    assert list(rows[0]) == ["method"] + cols
    for r in rows:
        for c in cols:
            v = float(r[c])
            # a validation threshold may do worse than chance on a tiny test split (0.51 once, cosine)
            assert 0.0 <= v <= 1.0, (r["method"], c, v)
    md = (results / "table1.md").read_text()
    assert md.count("\n") == 2 + len(METHODS) and md.count("**") >= 2 * 6
    assert "\\begin{tabular}" in (results / "table1.tex").read_text()
    assert (results / "table1_cosine.md").read_text().count("\n") == 2 + len(METHODS)
    for name in ("table1_pvalues.md", "table1_pvalues_cosine.md"):
        pv = (results / name).read_text().splitlines()
        assert len(pv) == 2 + len(METHODS) - 1
        for line in pv[2:]:
            cells = line.strip("| ").split(" | ")[1:]
            assert len(cells) == 4 * 3
            for k in range(3):  # binomial, McNemar, paired difference (points, interval), bootstrap p
                binomial, mcnemar, diff, boot = cells[4 * k:4 * k + 4]
                assert 0.0 <= float(binomial) <= 1.0 and 0.0 <= float(mcnemar) <= 1.0
                d, lo, hi = (float(x) for x in diff.replace("(", "").replace(")", "").replace(" to ", " ").split())
                assert lo <= d <= hi or abs(d) < 1e-9
                assert boot == "< 0.0005" or 0.0 <= float(boot) <= 1.0


def test_provenance_and_readme(chain):
    data, results, readme = chain
    prov = json.loads((results / "table1.json").read_text())
    assert prov["seed"] == 0 and prov["commit"]
    import hashlib
    assert prov["checksums"]["w2v/vectors.npy"] == hashlib.sha256((data / "w2v" / "vectors.npy").read_bytes()).hexdigest()
    assert {f"{s}/{k}.npz" for s in ("wiki20", "wikivar") for k in ("train", "validation", "test")} <= set(prov["checksums"])
    assert prov["corpus"]["articles"] == 12
    assert set(prov["models"]) == {f"{s}-{l}" for s in ("wiki20", "wikivar") for l in ("contrastive", "median")}
    med = prov["models"]["wiki20-median"]
    # the grid 20, 160, and any kappa the search went on to beyond the edge that won (recorded)
    assert med["cv_grid"] == sorted({20.0, 160.0} | set(med["cv_extended"])) and med["kappa"] in med["cv_grid"]
    assert isinstance(med["cv_flat"], bool)
    table = (results / "table1.md").read_text() + (results / "table1_family.md").read_text()
    assert "Kappa of the Wikipedia, variable length family, by 5-fold CV over the family's grid: plain/Euclidean " in table
    assert prov["models"]["wiki20-contrastive"]["kappa"] is None
    p = prov["results"]["wiki20"]["mean"]["p_value_vs_learned_median"]
    assert 0.0 <= p <= 1.0
    assert prov["other_vectors"]["remap_test"]["tokens_kept"] < 1.0
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "\nold\n" not in text
    assert "Written by `make table1` from `results/table1.json`" in text and "Learned weights, median" in text
    assert table1.findings_block(1, prov) in text
    details = (readme.parent / "docs" / "RESULTS.md").read_text()
    assert details.startswith("before\n") and details.endswith("after\n") and "\nold\n" not in details
    assert "Every row scored by the cosine" in details
    # the figure linked from docs/ to the results folder beside it
    assert "![Split errors with their intervals](../results/table1_errors.png)" in details
    # the bootstrap resamples whole articles: fewer related units than related test couples
    units = prov["results"]["wiki20"]["mean"]["boot_units"]["related"]
    assert 0 < units < prov["results"]["wiki20"]["mean"]["test_pairs"] // 2


def test_figures_show_the_models_weights_and_every_test_couple(chain):
    data, results, _ = chain
    for name in ("figure2", "figure3"):
        assert (results / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (results / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
    layout = Layout(str(data))
    weights = {loss: store.load_model(layout.model("wiki20", loss)).weights for loss in LOSSES}
    fig = figures.figure3(weights)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines() if line.get_label().endswith(" loss")}
    assert set(lines) == {"contrastive loss", "median loss"}
    for loss, w in weights.items():
        x, y = lines[f"{loss} loss"].get_data()
        assert list(x) == list(range(1, 21))
        np.testing.assert_allclose(np.asarray(y) * np.abs(w).max(), w, rtol=1e-6)  # the weights, scaled by their max
    scores = report.table_scores(store.load_scores(layout.scores("wiki20"), ("mean@euclidean", "learned_median@euclidean")),
                                 "euclidean", ("mean", "learned_median"))
    related = scores["test_label"] == 1
    fig = figures.figure2(scores, "Wikipedia, 20 words")
    for ax in fig.axes:
        heights = [p.get_height() for p in ax.patches]
        assert len(heights) == 2 * 60  # unrelated, then related, 60 bins each
        assert sum(heights[:60]) == (~related).sum() and sum(heights[60:]) == related.sum() > 0


def test_the_error_figure_shows_every_row_and_interval(chain):
    _, results, _ = chain
    prov = json.loads((results / "table1.json").read_text())
    assert (results / "table1_errors.png").read_bytes()[:4] == b"\x89PNG"
    res = prov["results"]
    titles = {s: s for s in res}
    fig = figures.error_intervals(res, titles, {m: m for m in METHODS})
    for ax, s in zip(fig.axes, res):
        points = [line for line in ax.get_lines() if line.get_label() == "split error"][0]
        np.testing.assert_allclose(points.get_xdata(), [100 * res[s][m]["split_error"] for m in METHODS])
        bars = ax.collections[0].get_segments()  # one horizontal segment per method: the 95% interval
        np.testing.assert_allclose([[b[0][0], b[1][0]] for b in bars],
                                   [[100 * x for x in res[s][m]["split_error_ci95"]] for m in METHODS])


def test_cli_reports_bad_input(tmp_path, capsys):
    code = run(train_weights.main, ["--data", str(tmp_path), "--setting", "wiki20",
                                    "--loss", "median", "--out", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and "vectors.npy" in err and err.count("\n") == 1
    assert not (tmp_path / "m.npz").exists()


def test_the_best_transform_row_is_the_family_member_of_the_lowest_validation_error(chain):
    from repro import settings
    from repro.core import metrics
    from repro.evaluate import family, tokentables

    data, results, readme = chain
    for s in ("wiki20", "wikivar", "other"):
        meta = json.loads((data / "scores" / f"{s}.json").read_text())["family"]
        z = np.load(data / "scores" / f"{s}.npz")
        for metric in settings.TABLE_METRICS:
            errors = {}
            for m in family.members():
                v = z[settings.score_key("validation", settings.family_method(m.key), metric)]
                errors[m.key] = metrics.split(v, z["validation_label"], v, z["validation_label"]).error
            chosen = meta["chosen"][metric]["member"]
            assert chosen == min(errors, key=lambda k: (errors[k], list(errors).index(k))), (s, metric)
            for split in ("validation", "test"):
                np.testing.assert_array_equal(z[settings.score_key(split, "learned_best", metric)],
                                              z[settings.score_key(split, settings.family_method(chosen), metric)])
    fam = (results / "table1_family.md").read_text()
    assert fam.count("\n| on ") == 2 * len(family.keys()) and fam.count("Best peer") == 2
    details = (readme.parent / "docs" / "RESULTS.md").read_text()
    assert "<!-- family-table1:start -->" in details and "Zipfian-whitened" in details
    prov = json.loads((results / "table1.json").read_text())
    for s in ("wiki20", "wikivar", "other"):
        for metric, key in (("euclidean", "results"), ("cosine", "results_cosine")):
            row = prov[key][s]["learned_best"]
            assert row["best_peer"] in settings.RIVALS and row["boot_diff_vs_best_peer"]["low"] <= row[
                "boot_diff_vs_best_peer"]["high"]
            assert row["peer_family"] == "peer_best" and row["boot_diff_vs_peer_family"]["low"] <= row[
                "boot_diff_vs_peer_family"]["high"]
    assert "Learned weights, best transform (validation; not in the paper): " in readme.read_text()
    for suffix, key in (("", "results"), ("_cosine", "results_cosine")):  # every row of ours against the best peer
        lines = (results / f"table1_vs_peer{suffix}.md").read_text().splitlines()
        assert [ln.split(" | ")[0].lstrip("| ") for ln in lines[2:2 + len(settings.OURS)]] == [
            settings.LABELS[m] for m in settings.OURS]
        cells = lines[2].split(" | ")  # the contrastive row, wiki20: against the peer family, the best peer by test
        for cell, which in zip(cells[1:3], ("peer_family", "best_peer")):
            d = prov[key]["wiki20"]["learned_contrastive"]["boot_diff_vs_" + which]
            assert cell == f"{100 * d['difference']:+.2f} ({100 * d['low']:+.2f} to {100 * d['high']:+.2f})"
    assert "Every row of ours against the peers, cosine table" in details
    chosen = prov["peer_choices"]["wiki20"]["peer_best"]
    grid = len(family.PEER_CONFIGS) + len(tokentables.PEER_CONFIGS)  # the word configurations and WordLlama's
    assert chosen["grid"] == grid >= len(family.keys())
    for metric in settings.TABLE_METRICS:  # the row's configuration is the search's lowest validation error
        errors = chosen["validation_split_error"][metric]
        assert errors[chosen[metric]["config"]] == min(errors.values()) == chosen[metric]["validation_split_error_search"]
    assert f"Peers, best configuration (validation), chosen among {grid} configurations" in details


def test_the_family_is_trained_on_training_couples_only(chain, monkeypatch):
    """Every map and every weight of the family comes from the training split: no other split is read."""
    data, _, _ = chain
    read = []
    original = train_family.load_split
    monkeypatch.setattr(train_family, "load_split", lambda d, s, split: read.append(split) or original(d, s, split))
    monkeypatch.setattr(train_family.store, "save_model", lambda path, record: None)
    monkeypatch.setattr(train_family.store, "write_json", lambda path, obj: None)
    train_family.main(["--data", str(data), "--setting", "wiki20", *TRAIN])
    assert read == ["train"]


def test_the_family_by_distance_and_the_scores_in_two_parts_are_one_runs_files(chain, tmp_path):
    """make's split stages: each training distance's members fitted on their own (--distance), then
    joined (--merge), give the summary and the bits of one run of them all; the scores of the rows
    then of the family (--part rows, --part family) are the file of one run of every row."""
    import shutil

    data, _, _ = chain
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    shutil.rmtree(copy / "family" / "wiki20")
    args = ["--data", str(copy), "--setting", "wiki20", *TRAIN]
    for distance in ("cosine", "euclidean"):
        assert train_family.main(args + ["--distance", distance]) is None
        part = json.loads((copy / "family" / "wiki20" / f"summary-{distance}.json").read_text())
        assert [k.rsplit("-", 1)[1] for k in part["members"]] == [distance] * 7
    assert not (copy / "family" / "wiki20" / "summary.json").exists()
    assert train_family.main(["--data", str(copy), "--setting", "wiki20", "--merge"]) is None
    whole = json.loads((data / "family" / "wiki20" / "summary.json").read_text())
    merged = json.loads((copy / "family" / "wiki20" / "summary.json").read_text())
    drop = lambda s: {**s, "members": {k: {**v, "seconds": None} for k, v in s["members"].items()}}
    assert list(merged["members"]) == list(whole["members"]) and drop(merged) == drop(whole)
    for key in whole["members"]:
        a = store.load_model(str(data / "family" / "wiki20" / f"{key}.npz"))
        b = store.load_model(str(copy / "family" / "wiki20" / f"{key}.npz"))
        assert np.array_equal(a.weights, b.weights) and a.kappa == b.kappa, key

    scores = copy / "scores"
    assert score.main(["--data", str(copy), "--setting", "wiki20", "--part", "rows",
                       "--out", str(scores / "rows.npz")]) is None
    with np.load(scores / "rows.npz") as z:
        assert not any("learned_best" in k or "family_" in k for k in z.files)
    assert score.main(["--data", str(copy), "--setting", "wiki20", "--part", "family", "--rows",
                       str(scores / "rows.npz"), "--out", str(scores / "two.npz")]) is None
    assert score.main(["--data", str(copy), "--setting", "wiki20", "--out", str(scores / "one.npz")]) is None
    with np.load(scores / "one.npz") as one, np.load(scores / "two.npz") as two:
        assert one.files == two.files
        assert all(np.array_equal(one[k], two[k]) for k in one.files)
    metas = [json.loads((scores / f"{n}.json").read_text()) for n in ("one", "two")]
    assert [list(m) for m in metas][0] == list(metas[1])
    assert [{k: v for k, v in m.items() if k != "seconds"} for m in metas][0] == \
        {k: v for k, v in metas[1].items() if k != "seconds"}
    # a family part needs its rows' file, of the same setting
    assert run(score.main, ["--data", str(copy), "--setting", "wiki20", "--part", "family",
                            "--out", str(scores / "x.npz")]) == 1
    assert run(score.main, ["--data", str(copy), "--setting", "wikivar", "--part", "family", "--rows",
                            str(scores / "rows.npz"), "--out", str(scores / "x.npz")]) == 1


def test_the_wordllama_row_is_the_mean_of_the_tokens_of_the_couple_texts(chain):
    """The row "WordLlama" on the couples read as text (a side's words joined by spaces, split by the
    token space's tokenizer, its unknown token dropped): minus the Euclidean distance and the cosine of
    the means of the token rows, against a direct computation; the other column's row is the wikivar
    column's; the learned family's row is the member of the lowest validation error among the word and
    the token members, and the family table lists both."""
    import tokenizers

    from repro import settings
    from repro.evaluate import family

    data, results, _ = chain
    folder = data.parent / "tokens"
    tok = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    matrix = np.load(folder / "vectors.npy")
    unk = tok.token_to_id("[UNK]")
    words = np.array(store.read_vocab(str(data / "w2v" / "vocab.txt")), dtype=object)
    test = store.load_pairs(str(data / "wikivar" / "test.npz"))
    z = np.load(data / "tokens" / "scores" / "wikivar.npz")
    assert np.array_equal(z["test_label"], test.label)
    split = []
    for k in range(0, test.size, max(1, test.size // 9)):
        va, vb = (matrix[[i for i in tok.encode(" ".join(words[r[:n]]), add_special_tokens=False).ids if i != unk]].mean(0)
                  for r, n in ((test.a[k], test.len_a[k]), (test.b[k], test.len_b[k])))
        split.append(len(tok.encode(str(words[test.a[k][0]])).ids) > 1)
        assert z["test_wordllama@euclidean"][k] == pytest.approx(-np.linalg.norm(va - vb), rel=1e-5, abs=1e-6)
        assert z["test_wordllama@cosine"][k] == pytest.approx(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb), rel=1e-5)
    assert any(split)  # the tiny BPE splits words into several tokens
    prov = json.loads((results / "table1.json").read_text())
    for key in ("results", "results_cosine"):
        for k in ("split_error", "threshold", "js", "test_errors", "split_error_boot95"):
            assert prov[key]["other"]["wordllama"][k] == prov[key]["wikivar"]["wordllama"][k], k
    order = family.keys()
    for s in ("wiki20", "wikivar", "other"):
        word = json.loads((data / "scores" / f"{s}.json").read_text())["family"]["validation_split_error"]
        source = "wikivar" if s == "other" else s
        token = json.loads((data / "tokens" / "scores" / f"{source}.json").read_text())["family"]
        for metric in settings.TABLE_METRICS:
            errors = {**word[metric], **token[metric]}
            assert set(errors) == set(order)
            chosen = prov["family_choices"][s][metric]["member"]
            assert chosen == min(errors, key=lambda k: (errors[k], order.index(k))), (s, metric)
    fam = (results / "table1_family.md").read_text()
    assert "on WordLlama's Zipfian-whitened token vectors under 1 - cos" in fam
    assert "WordLlama plain/Euclidean" in fam  # the token members' kappa
    summary = json.loads((data / "tokens" / "family" / "wikivar" / "summary.json").read_text())
    assert summary["n_max"] >= 1 and set(summary["members"]) == {m.key for m in family.members("tokens")}


def test_the_seed_tables_of_seeds_that_repeat_one_run_give_its_numbers_without_spread(chain, tmp_path):
    """experiments.seedtables over three "seeds" that are the same run (seeds 1 and 2 link to seed
    0's folder): every mean is the one-run table's number, every spread 0, every seed's one-run
    word the table's own; the blocks go where their markers are; a missing seed is one clear error."""
    import json
    import os

    from experiments import seedtables
    from repro.errors import InputError

    data, results, _ = chain
    (data / "seeds").mkdir(exist_ok=True)
    for s in (1, 2):
        if not (data / "seeds" / str(s)).exists():
            os.symlink(data, data / "seeds" / str(s))
    readme, details = tmp_path / "README.md", tmp_path / "RESULTS.md"
    readme.write_text("a\n<!-- glance:start -->\n<!-- glance:end -->\nb\n")
    details.write_text("<!-- seed-findings-table1:start -->\n<!-- seed-findings-table1:end -->\n")
    out = tmp_path / "out"
    assert seedtables.main(["--data", str(data), "--seeds", "0,1,2", "--tables", "1", "--results", str(out),
                            "--readme", str(readme), "--readme", str(details)]) == 0
    one = json.loads((results / "table1.json").read_text())
    seeds = json.loads((out / "seeds_table1.json").read_text())
    assert seeds["seeds"] == [0, 1, 2]
    for metric, key in (("euclidean", "results"), ("cosine", "results_cosine")):
        for col, rows in one[key].items():
            for m, r in rows.items():
                sp = seeds["results"][metric][col][m]["split_error"]
                assert sp["per_seed"] == [r["split_error"]] * 3 and sp["sd"] == pytest.approx(0.0, abs=1e-12)
                assert seeds["results"][metric][col][m]["js"]["mean"] == pytest.approx(r["js"])
            v = seeds["verdicts"][metric][col]["peers"]
            d = rows["learned_best"]["boot_diff_vs_peer_family"]
            alone = "better" if d["high"] < 0 else "worse" if d["low"] > 0 else "level"
            assert v["one_run"] == [alone] * 3 and v["difference"] == pytest.approx(d["difference"])
            chosen = seeds["choices"][metric][col]["family"]
            assert chosen == [[one["family_choices"][col][metric]["member"], 3]]
    assert "Table 1 over 3 seeds (0, 1, 2)" in (out / "seeds_table1.md").read_text()
    assert seedtables.findings_block(1, seeds) in details.read_text()
    assert readme.read_text() == "a\n<!-- glance:start -->\n<!-- glance:end -->\nb\n"  # the glance needs both tables
    with pytest.raises(InputError, match="seed 7 has no score file"):
        seedtables.main(["--data", str(data), "--seeds", "0,7", "--tables", "1", "--results", str(out)])
    with pytest.raises(InputError, match="--seeds"):
        seedtables.main(["--data", str(data), "--seeds", "0,0", "--tables", "1", "--results", str(out)])
