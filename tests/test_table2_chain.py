"""End to end: `make table2` on a tweet collection and a tiny Wikipedia chain the test writes."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from repro.io import store
from repro.errors import run
from repro.core.modelrecord import ModelRecord
from repro.data.wikipedia import paragraphdf
from repro.data.wikipedia import embeddings
from tests.tinytokens import token_folder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPICS = ["river", "bridge", "storm", "market", "vote", "court", "music", "space", "school", "fire",
          "health", "trade", "police", "rail", "film", "farm", "ocean", "bank", "game", "art"]
COMMON = ["the", "a", "of", "and", "in", "to", "is", "on", "for", "with", "new", "city", "says", "today",
          "after", "over", "people", "report", "week", "first"]


COLUMNS = ("twitter_news", "twitter_news_nort", "twitter")


def v1(i, text, t, author="someone"):
    stamp = time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(t))
    return {"id_str": str(i), "text": text, "created_at": stamp, "lang": "en", "user": {"screen_name": author}}


def _word(topic: str, j: int) -> str:
    return topic + "abcdefghijkl"[j]  # letters: cleaning turns digits into 0


def tweets(seed=0, n_topics=20, per_topic=8):
    """Tweets about topics: those of one topic share its hashtag and its words, a few minutes apart;
    every other topic is tweeted by @CNN (a news account), the rest by someone else."""
    rng = np.random.default_rng(seed)
    out, i, t0 = [], 0, 1_500_000_000
    for k, topic in enumerate(TOPICS[:n_topics]):
        own = [_word(topic, j) for j in range(12)]
        for m in range(per_topic):
            words = list(rng.choice(own, size=4, replace=False)) + list(rng.choice(COMMON, size=4, replace=False))
            out.append(v1(i, " ".join(words) + f" #{topic}", t0 + k * 7200 + m * 60, "CNN" if k % 2 else "someone"))
            i += 1
    return out


def paragraphs(seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for k, topic in enumerate(TOPICS):
        own = [_word(topic, j) for j in range(12)]
        for p in range(6):
            toks = [rng.choice(own) if rng.random() < 0.5 else rng.choice(COMMON) for _ in range(60)]
            lines.append(f"{k}\t{' '.join(toks)}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("t2")
    data = root / "data"
    data.mkdir()
    (data / "paragraphs.tsv").write_text(paragraphs())
    assert run(embeddings.main, ["--paragraphs", str(data / "paragraphs.tsv"), "--out", str(data / "w2v"), "--epochs", "3",
                            "--dim", "8", "--min-count", "1", "--seed", "1"]) == 0
    assert run(paragraphdf.main, ["--paragraphs", str(data / "paragraphs.tsv"), "--vocab", str(data / "w2v" / "vocab.txt"),
                         "--out", str(data / "df.npz"), "--workers", "1"]) == 0
    # the Wikipedia median model whose kappa Table 2 keeps (paper, section 5.4)
    store.save_model(str(data / "models" / "wikivar-median.npz"),
                     ModelRecord(np.full(30, 0.5), np.array([1.0]), np.array([0.01]), 1, "median", 640.0, "cv", 1e-3,
                                 "euclidean", train_pairs=1, seconds=dict(prepare=0.0, kappa_cv=0.0, train=0.0)))
    # and the wikivar family, each member's kappa kept by the tweets' (repro/evaluate/family.py)
    from repro.evaluate import family
    for m in family.members():
        store.save_model(str(data / "family" / "wikivar" / f"{m.key}.npz"),
                         ModelRecord(np.full(30, 0.5), np.array([1.0]), np.array([0.01]), 1, "median", 160.0, "cv", 1e-3,
                                     m.distance, train_pairs=1, seconds=dict(prepare=0.0, kappa_cv=0.0, train=0.0)))
    store.write_json(str(data / "family" / "wikivar" / "summary.json"), {"setting": "wikivar"})
    # the WordLlama rows on a tiny token space trained on the paragraphs (a vocabulary that keeps most
    # words whole: short token rows, so the token members train on a few dozen weights, not a hundred),
    # the wikivar token family's kappa kept
    from repro.evaluate import family
    token_folder(root / "space", [line.split("\t", 1)[1] for line in paragraphs().splitlines()], vocab_size=400)
    for m in family.members("tokens"):
        store.save_model(str(data / "tokens" / "family" / "wikivar" / f"{m.key}.npz"),
                         ModelRecord(np.full(30, 0.5), np.array([1.0]), np.array([0.01]), 1, "median", 40.0, "cv", 1e-3,
                                     m.distance, train_pairs=1, seconds=dict(prepare=0.0, kappa_cv=0.0, train=0.0)))
    store.write_json(str(data / "tokens" / "family" / "wikivar" / "summary.json"), {"setting": "wikivar"})
    stamp = root / "stamp"
    stamp.write_text("")
    return root, data, stamp


def make(root, data, stamp, tweets_arg, results="results", *extra, jobs=1):
    cmd = ["make", "-s", f"-j{jobs}", f"DATA={data}", f"RESULTS={root / results}", f"PY={sys.executable}",
           f"STAMP={stamp}", f"TWEETS={tweets_arg}", "-o", str(stamp), "-o", str(data / "paragraphs.tsv"),
           "-o", str(data / "w2v" / "vectors.npy"), "-o", str(data / "df.npz"),
           "-o", str(data / "models" / "wikivar-median.npz"), "-o", str(data / "family" / "wikivar" / "summary.json"),
           "-o", str(data / "tokens" / "family" / "wikivar" / "summary.json"), f"TOKEN_SPACE={root / 'space'}",
           *extra, "table2"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def table2(workspace):
    """``make table2`` on 160 tweets and a malformed line: the paper's kappa (the wikivar
    median model's). One job: the news columns (of the same sizes) then share their compiled
    programs through the session's compilation cache, where two jobs would compile them twice at
    once; the second run below takes two jobs and must give the same bytes."""
    root, data, stamp = workspace
    path = root / "tweets.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tweets()) + "not json at all\n")
    out = make(root, data, stamp, str(path), jobs=1)
    assert out.returncode == 0, out.stderr[-3000:]
    return path


def test_make_table2_end_to_end(workspace, table2):
    root, data, stamp = workspace
    res = root / "results"
    for ext in ("md", "csv", "tex", "json"):
        assert (res / f"table2.{ext}").stat().st_size > 100
    with open(res / "table2.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["method"] for r in rows][-9:] == ["learned_median", "sif", "usif", "zipf", "uwhiten", "wordllama",
                                               "peer_best", "learned_median_cc", "learned_best"] and len(rows) == 18
    cols = ["twitter_news", "twitter_news_nort", "twitter"]
    assert list(rows[0]) == ["method"] + [f"{s}_{m}" for s in cols for m in ("split_error", "js")] + [
        f"{s}_cosine_{m}" for s in cols for m in ("split_error", "js")]
    prov = json.loads((res / "table2.json").read_text())
    news, nort, every = (prov["pairs"][s] for s in COLUMNS)
    for tw in (news, nort, every):
        assert tw["tweets"]["reading"]["records"] == 160 and tw["tweets"]["reading"]["malformed"] == 1
        assert tw["counts"]["train"]["related"] == tw["counts"]["train"]["unrelated"] > 0
        assert tw["tweets_shared_across_splits"] == 0
    assert news["tweets"]["reading"]["kept"] == nort["tweets"]["reading"]["kept"] == 80
    assert every["tweets"]["reading"]["kept"] == 160
    # the per-column options of `repro tweets`: only the nort column drops manual retweets (none here)
    assert [tw["tweets"]["rules"]["drop_manual_retweets"] for tw in (news, nort, every)] == [False, True, False]
    assert nort["counts"] == news["counts"]
    for tw in (news, nort, every):  # the cues of every column, with the tweets stage's flags
        cues = tw["cues"]
        assert cues["manual_retweet_share"] == {"related": 0.0, "related_test": 0.0}
        assert 0 < cues["top5_component_share_test"] <= 1 and cues["mean_known_words"]["related"] > 0
    for setting in COLUMNS:
        for m, r in prov["results"][setting].items():
            for key in ("split_error_ci95", "split_error_boot95"):
                lo, hi = r[key]
                assert lo <= r["split_error"] <= hi, (setting, m, key)
        # the couples file: every couple names its tweets and split, and no tweet is in two splits
        lines = [json.loads(x) for x in (data / setting / "couples.jsonl").read_text().splitlines()]
        where = {}
        for x in lines:
            for tid in x["ids"]:
                where.setdefault(tid, set()).add(x["split"])
        assert len(where) > 40 and all(len(v) == 1 for v in where.values())
    models = prov["models"]
    assert set(models) == {f"{s}-{l}" for s in COLUMNS for l in ("contrastive", "median")}
    for s in COLUMNS:  # kappa as the paper keeps it: the wikivar median model's
        assert models[f"{s}-median"]["kappa"] == 640.0 and models[f"{s}-median"]["kappa_source"] == "model"
    from repro.evaluate import family
    for s in COLUMNS:  # the family: every member's kappa from the wikivar family's, as the median model's
        for m in family.members():
            record = store.load_model(str(data / "family" / s / f"{m.key}.npz"))
            assert record.kappa == 160.0 and record.kappa_source == "model" and record.distance == m.distance
        for m in family.members("tokens"):  # and the WordLlama members' from the wikivar token family's
            record = store.load_model(str(data / "tokens" / "family" / s / f"{m.key}.npz"))
            assert record.kappa == 40.0 and record.kappa_source == "model" and record.distance == m.distance
        assert prov["family_choices"][s]["cosine"]["member"] in family.keys()
    assert (res / "table2_family.md").read_text().count("\n| on ") == 2 * len(family.keys())
    text = (res / "table2.md").read_text()
    assert "95% CI" in text and "bootstrap 95%" in text
    assert set(prov["results_cosine"]) == set(COLUMNS)
    for s in COLUMNS:  # each peer's choice on validation, under each metric
        assert set(prov["peer_choices"][s]) == {"sif", "usif", "zipf", "uwhiten", "learned_median_cc", "peer_best"}
        assert set(prov["peer_choices"][s]["zipf"]["cosine"]["params"]) == {"mode", "components"}
        assert set(prov["peer_choices"][s]["sif"]) == {"euclidean", "cosine"}
    readme = json.dumps(prov)
    assert "wikivar-median.npz" in readme


def test_a_second_run_gives_every_file_byte_for_byte(workspace, table2, tmp_path):
    """make -j2 table2 again (the first run took one job), from the same inputs into another data
    folder: the same tables (the family's included) and the same trained files, every array to the
    last bit (a run-to-run difference on one machine would be a determinism bug: issue 31)."""
    import shutil
    from experiments.reprocheck import digest
    root, data, stamp = workspace
    again = tmp_path / "data"
    for part in ("paragraphs.tsv", "w2v", "df.npz", "models/wikivar-median.npz", "family/wikivar", "tokens/family/wikivar"):
        (again / part).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (data / part).is_dir() else shutil.copy2)(data / part, again / part)
    out = make(root, again, stamp, str(table2), "results-again", jobs=2)
    assert out.returncode == 0, out.stderr[-3000:]
    first, second = root / "results", root / "results-again"
    tables = sorted(p.name for p in first.glob("table2*.md")) + sorted(p.name for p in first.glob("table2*.csv"))
    assert "table2_family.md" in tables and len(tables) >= 8
    for name in tables:
        assert (second / name).read_bytes() == (first / name).read_bytes(), name
    trained = sorted(os.path.relpath(p, data) for p in data.glob("*/twitter*/*.npz")) + \
        sorted(os.path.relpath(p, data) for p in data.glob("*/twitter*.npz"))
    assert any(t.startswith("family/") for t in trained) and any(t.startswith("models/") for t in trained)
    for rel in trained:  # arrays, not timings
        assert digest(str(again / rel)) == digest(str(data / rel)), rel


def test_make_table2_kappa_by_cross_validation_on_request(workspace, table2):
    """TWITTER_KAPPA=cv after a run with the paper's kappa: every model whose kappa came from the
    Wikipedia runs is retrained with kappa searched on the tweets (the median models, the learned
    family's parts, the WordLlama members), and nothing else before the scores is redone. make's
    plan (-n) shows it for every column; the run itself retrains the family and the WordLlama members
    of the paper's column only (the other columns' kept with make -o: their programs are the same
    code on other sizes), and every column's median model."""
    root, data, stamp = workspace
    kept = [data / s / "couples.jsonl" for s in COLUMNS] + [data / s / "train.npz" for s in COLUMNS] + [
        data / "models" / f"{s}-contrastive.npz" for s in COLUMNS]
    before = {p: p.stat().st_mtime_ns for p in kept}
    cv = ("TWITTER_KAPPA=cv", "KAPPA_GRID=20,160")
    plan = make(root, data, stamp, str(table2), "results-cv", *cv, "-n")
    assert plan.returncode == 0, plan.stderr[-3000:]
    trains = [line for line in plan.stdout.splitlines() if " -m experiments.train_" in line and "--merge" not in line]
    for s in COLUMNS:
        for what in ("train_weights --data {} --setting {} --loss median", "train_family --data {} --setting {} --seed 0 "
                     "--distance euclidean", "train_family --data {} --setting {} --seed 0 --distance cosine",
                     "train_tokenfamily --data {} --setting {} "):
            assert sum(what.format(data, s) in line for line in trains) == 1, (s, what, trains)
    assert len(trains) == 4 * len(COLUMNS) and not any("--kappa-from" in line for line in trains), trains
    assert not any(" -m repro tweet" in line for line in plan.stdout.splitlines())  # the couples and splits kept
    paper, others = COLUMNS[0], COLUMNS[1:]
    old = [data / "family" / s / f"summary-{d}.json" for s in others for d in ("euclidean", "cosine")] + [
        data / "tokens" / "family" / s / "summary.json" for s in others]
    out = make(root, data, stamp, str(table2), "results-cv", *cv, *(x for p in old for x in ("-o", str(p))), jobs=1)
    assert out.returncode == 0, out.stderr[-3000:]
    assert {p: p.stat().st_mtime_ns for p in kept} == before
    prov = json.loads((root / "results-cv" / "table2.json").read_text())
    for s in COLUMNS:
        m = prov["models"][f"{s}-median"]
        assert m["kappa_source"] == "cv" and m["kappa"] in m["cv_grid"] and {20.0, 160.0} <= set(m["cv_grid"])
        assert prov["models"][f"{s}-contrastive"]["kappa"] is None
    from repro.evaluate import family
    for folder, members in ((data / "family" / paper, family.members()),
                            (data / "tokens" / "family" / paper, family.members("tokens"))):
        for m in members:  # the paper's column: every member's kappa searched on its tweets
            record = store.load_model(str(folder / f"{m.key}.npz"))
            assert record.kappa_source == "cv" and record.distance == m.distance, m.key
    for s in others:  # the others' kept as the first run made them
        assert store.load_model(str(data / "family" / s / f"{family.members()[0].key}.npz")).kappa_source == "model"


@pytest.mark.parametrize("case", ["empty", "malformed", "no-couples"])
def test_make_table2_bad_input(workspace, case):
    root, data, stamp = workspace
    path = root / f"bad-{case}.jsonl"
    if case == "empty":
        path.write_text("")
    elif case == "malformed":
        path.write_text("{not json\n[1, 2\n")
    else:  # readable tweets, but every hashtag differs: no related couple
        path.write_text("".join(json.dumps(v1(i, f"word{i} the new city says today #tag{i}", 1_500_000_000 + i))
                                + "\n" for i in range(20)))
    out = make(root, data, stamp, str(path), results=f"results-{case}")
    errors = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert out.returncode != 0 and len(errors) == 1 and str(path) in errors[0], out.stderr[-2000:]
    assert not (root / f"results-{case}").exists()


def test_cue_sentence_under_table2_and_older_summaries_without_cues():
    from experiments.tables import _twitter_setting_lines

    tw = {"counts": {"test": {"related": 10, "unrelated": 10, "components": 7, "related_clusters": 4,
                              "largest_cluster_related": 5}},
          "dropped_empty_text": {"related": 1, "unrelated": 2}}
    old = _twitter_setting_lines("Twitter, news accounts", tw)
    assert "test 10 + 10 (7, 4, 5)" in old[0] and "3 dropped" in old[0]
    assert not any("What the column measures" in line for line in old)
    cues = {"manual_retweet_share": {"related": 0.8, "related_test": 0.75},
            "answer_token_share": {"related": 0.2, "unrelated": 0.0}, "top5_component_share_test": 0.8123,
            "mean_known_words": {"related": 13.5, "unrelated": 9.21}}
    lines = _twitter_setting_lines("Twitter, news accounts", {**tw, "cues": cues})
    assert lines[2] == ("What the column measures: 80% of related couples involve a manual retweet (75% of the test "
                        "ones), 20% share a tweet-chat answer token (unrelated: 0%), the five largest clusters hold "
                        "81% of the related test couples; related texts have 13.5 known words, unrelated 9.2.")
    no_flags = _twitter_setting_lines("t", {**tw, "cues": {**cues, "manual_retweet_share": None}})
    assert no_flags[2].startswith("What the column measures: 20% share a tweet-chat answer token")


def test_three_columns_and_the_papers_table_has_only_its_own():
    from experiments.tables import paper_markdown, titles

    assert tuple(titles(2)) == COLUMNS
    header = paper_markdown(2).splitlines()[0]
    assert header == "| Method | Twitter, news accounts: split error | JS |"


def test_the_readme_block_of_table2_says_its_clusters_and_cues(workspace, table2):
    """The findings block of Table 2: every column's effective clusters, the verdicts' rule below
    20 (a few tweet components here), and the cues of each column, from the run's JSON."""
    from experiments.tables import findings_block
    from repro.core import metrics
    root, data, stamp = workspace
    prov = json.loads((root / "results" / "table2.json").read_text())
    block = findings_block(2, prov)
    units = {s: next(iter(rows.values()))["boot_units"] for s, rows in prov["results"].items()}
    for s, u in units.items():
        assert f"({u['effective_clusters']:,.1f} effective)" in block
    if any(u["effective_clusters"] < metrics.MIN_CLUSTERS for u in units.values()):
        assert "too few independent clusters to rank" in block
    assert "Besides meaning, cues tell related couples from unrelated ones:" in block
    assert block.count("- **Twitter") >= 3 + 3  # the six verdict lines, and the cue lines after them
