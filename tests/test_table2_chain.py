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

from repro.errors import run
from repro.data import docfreq, embeddings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPICS = ["river", "bridge", "storm", "market", "vote", "court", "music", "space", "school", "fire",
          "health", "trade", "police", "rail", "film", "farm", "ocean", "bank", "game", "art"]
COMMON = ["the", "a", "of", "and", "in", "to", "is", "on", "for", "with", "new", "city", "says", "today",
          "after", "over", "people", "report", "week", "first"]


def v1(i, text, t):
    stamp = time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(t))
    return {"id_str": str(i), "text": text, "created_at": stamp, "lang": "en", "user": {"screen_name": "news"}}


def tweets(seed=0, n_topics=20, per_topic=8):
    """Tweets about topics: those of one topic share its hashtag and its words, a few minutes apart."""
    rng = np.random.default_rng(seed)
    out, i, t0 = [], 0, 1_500_000_000
    for k, topic in enumerate(TOPICS[:n_topics]):
        own = [f"{topic}{j}" for j in range(12)]
        for m in range(per_topic):
            words = list(rng.choice(own, size=4, replace=False)) + list(rng.choice(COMMON, size=4, replace=False))
            out.append(v1(i, " ".join(words) + f" #{topic}", t0 + k * 7200 + m * 60))
            i += 1
    return out


def paragraphs(seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for k, topic in enumerate(TOPICS):
        own = [f"{topic}{j}" for j in range(12)]
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
    assert run(docfreq.main, ["--paragraphs", str(data / "paragraphs.tsv"), "--vocab", str(data / "w2v" / "vocab.txt"),
                         "--out", str(data / "df.npz"), "--workers", "1"]) == 0
    stamp = root / "stamp"
    stamp.write_text("")
    return root, data, stamp


def make(root, data, stamp, tweets_arg, results="results"):
    cmd = ["make", "-s", f"DATA={data}", f"RESULTS={root / results}", f"PY={sys.executable}", f"STAMP={stamp}",
           f"TWEETS={tweets_arg}", "-o", str(stamp), "-o", str(data / "paragraphs.tsv"),
           "-o", str(data / "w2v" / "vectors.npy"), "-o", str(data / "df.npz"), "table2"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def test_make_table2_end_to_end(workspace):
    root, data, stamp = workspace
    path = root / "tweets.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tweets()) + "not json at all\n")
    out = make(root, data, stamp, str(path))
    assert out.returncode == 0, out.stderr[-3000:]
    res = root / "results"
    for ext in ("md", "csv", "tex", "json"):
        assert (res / f"table2.{ext}").stat().st_size > 100
    with open(res / "table2.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["method"] for r in rows][-1] == "learned_median" and len(rows) == 10
    assert list(rows[0]) == ["method", "twitter_split_error", "twitter_js"]
    prov = json.loads((res / "table2.json").read_text())
    tw = prov["pairs"]["twitter"]
    assert tw["tweets"]["reading"]["records"] == 160 and tw["tweets"]["reading"]["malformed"] == 1
    assert tw["counts"]["train"]["related"] == tw["counts"]["train"]["unrelated"] > 0
    for m, r in prov["results"]["twitter"].items():
        lo, hi = r["split_error_ci95"]
        assert lo <= r["split_error"] <= hi, m
    assert set(prov["models"]) == {"twitter-contrastive", "twitter-median"}
    assert "95% CI" in (res / "table2.md").read_text()


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
