"""repro encode / similarity / train / evaluate end to end on tiny files written here, and their errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from repro import cli
from repro.core import metrics
from repro.io import store
from repro.encode.encoder import Encoder
from repro.words.docfreq import DocFreq

import compilecache

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    m = np.random.default_rng(0).standard_normal((len(WORDS), 5)).astype(np.float32)
    with open(d / "vec.txt", "w") as f:  # GloVe text: no header
        for w, row in zip(WORDS, m):
            f.write(w + " " + " ".join(f"{x:.6f}" for x in row) + "\n")
    (d / "corpus.txt").write_text("alpha beta gamma\nbeta delta\nepsilon zeta eta alpha\ntheta beta\n")
    (d / "texts.txt").write_text("Alpha beta!\nGAMMA, delta and zeta\nnothing known\n")
    (d / "texts.jsonl").write_text('"Alpha beta!"\n["gamma", "delta", "and", "zeta"]\n{"text": "nothing known"}\n')
    rng = np.random.default_rng(1)
    lines = []
    for i in range(80):  # related couples share their first (rare) word
        k = WORDS[i % 4]
        other = WORDS[(i + 1) % 4]
        related = i % 2
        tail = lambda: " ".join(rng.choice(WORDS[4:], 3))  # noqa: E731
        lines.append(f"{k} {tail()}\t{k if related else other} {tail()}\t{related}")
    (d / "couples.tsv").write_text("\n".join(lines) + "\n")
    return d


def test_encode_lines_and_jsonl_agree_with_the_library(files, capsys):
    out_lines, out_json = str(files / "a.npy"), str(files / "b.npy")
    base = ["--vectors", str(files / "vec.txt"), "--corpus", str(files / "corpus.txt")]
    assert cli.main(["encode", str(files / "texts.txt"), "--out", out_lines, *base]) == 0
    err = capsys.readouterr().err
    assert "warning: 1 of 3 texts have no word with a vector (first: texts[2])" in err
    assert cli.main(["encode", str(files / "texts.jsonl"), "--out", out_json, *base]) == 0
    a, b = np.load(out_lines), np.load(out_json)
    assert a.shape == (3, 5) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert cli.main(["encode", str(files / "texts.txt"), "--out", out_json, *base, "--workers", "3"]) == 0
    np.testing.assert_array_equal(a, np.load(out_json))
    np.testing.assert_array_equal(a[2], 0.0)
    enc = Encoder.pretrained(str(files / "vec.txt"), corpus=(files / "corpus.txt").read_text().splitlines())
    with pytest.warns(UserWarning):
        np.testing.assert_array_equal(a, enc.transform(["Alpha beta!", "GAMMA, delta and zeta", "nothing known"]))


def test_train_then_encode_similarity_evaluate(files, capsys):
    model = str(files / "enc.npz")
    assert cli.main(["train", "--couples", str(files / "couples.tsv"), "--vectors", str(files / "vec.txt"),
                     "--corpus", str(files / "corpus.txt"), "--out", model, "--kappa", "40", "--n-max", "5"]) == 0
    assert "train: 80 couples" in capsys.readouterr().out
    meta = json.loads((files / "enc.json").read_text())
    assert meta["n_max"] == 5 and meta["provenance"]["fit"]["kappa"] == 40.0
    enc = Encoder.load(model)  # vectors from the recorded path

    assert cli.main(["similarity", "alpha beta", "beta alpha", "--model", model]) == 0
    assert float(capsys.readouterr().out) == 0.0
    scores = str(files / "scores.txt")
    assert cli.main(["similarity", "--couples", str(files / "couples.tsv"), "--model", model, "--out", scores]) == 0
    got = np.loadtxt(scores)
    pairs = [line.split("\t")[:2] for line in (files / "couples.tsv").read_text().splitlines()]
    np.testing.assert_allclose(got, enc.similarity([a for a, _ in pairs], [b for _, b in pairs]), atol=1e-6)

    capsys.readouterr()
    assert cli.main(["evaluate", "--couples", str(files / "couples.tsv"), "--model", model]) == 0
    result = json.loads(capsys.readouterr().out)
    labels = np.array([int(line.split("\t")[2]) for line in (files / "couples.tsv").read_text().splitlines()])
    from repro.core import metrics

    err, _ = metrics.split_error(got, labels, got, labels)
    assert result["couples"] == 80 and abs(result["split_error"] - err) < 1e-12 and result["split_error"] < 0.4  # chance: 0.5


def test_help_of_every_new_subcommand(capsys):
    for name in ("encode", "similarity", "train", "evaluate", "vectors"):
        with pytest.raises(SystemExit) as exit_:
            cli.main([name, "--help"])
        out = capsys.readouterr().out
        assert exit_.value.code == 0 and f"repro {name}" in out and "--quiet" in out
        assert ("--metric {euclidean,cosine}" in out) == (name in ("similarity", "evaluate"))


def test_bad_inputs_give_one_line_and_status_1(files, tmp_path, capsys, cli_error):
    vec, corpus = str(files / "vec.txt"), str(files / "corpus.txt")
    out = str(tmp_path / "x.npy")
    base = ["--vectors", vec, "--corpus", corpus]
    assert "missing.txt: no such file" in cli_error(["encode", str(tmp_path / "missing.txt"), "--out", out, *base])
    (tmp_path / "empty.txt").write_text("")
    assert "empty.txt: no texts (empty input)" in cli_error(["encode", str(tmp_path / "empty.txt"), "--out", out, *base])
    (tmp_path / "bad.bin").write_bytes(b"\x00\x01garbage")
    assert "bad.bin: cannot read word vectors" in cli_error(
        ["encode", str(files / "texts.txt"), "--out", out, "--vectors", str(tmp_path / "bad.bin"), "--corpus", corpus])
    assert not (tmp_path / "x.npy").exists()

    # an encoder saved for other vectors: another vocabulary, then other dimensions
    words_m = np.random.default_rng(2).standard_normal((len(WORDS), 5)).astype(np.float32)
    Encoder.pretrained((WORDS, words_m), DocFreq(["alpha"], np.array([1]), 4), model="paper").save(str(tmp_path / "enc.npz"))
    store.save_vectors(str(tmp_path / "other"), [w.upper() for w in WORDS], words_m)
    assert "weights saved for another vocabulary" in cli_error(
        ["encode", str(files / "texts.txt"), "--out", out, "--model", str(tmp_path / "enc.npz"),
                 "--vectors", str(tmp_path / "other")])
    store.save_vectors(str(tmp_path / "narrow"), WORDS, words_m[:, :3])
    assert "saved for 5-d vectors, but the vectors are 3-d" in cli_error(
        ["encode", str(files / "texts.txt"), "--out", out, "--model", str(tmp_path / "enc.npz"),
                 "--vectors", str(tmp_path / "narrow")])

    (tmp_path / "nolabel.tsv").write_text("alpha\tbeta\n")
    assert "nolabel.tsv: line 1: no label (a third column: 0 unrelated, 1 related)\n" in cli_error(
        ["train", "--couples", str(tmp_path / "nolabel.tsv"), *base, "--out", str(tmp_path / "t.npz")])
    (tmp_path / "badlabel.tsv").write_text("alpha\tbeta\t2\n")
    assert "badlabel.tsv: line 1: label must be 0 (unrelated) or 1 (related), got '2'\n" in cli_error(
        ["train", "--couples", str(tmp_path / "badlabel.tsv"), *base, "--out", str(tmp_path / "t.npz")])
    (tmp_path / "one.tsv").write_text("alpha\tbeta\tgamma\tdelta\n")
    assert "one.tsv: line 1: expected text_a<TAB>text_b[<TAB>label], found 4 fields" in cli_error(
        ["similarity", "--couples", str(tmp_path / "one.tsv"), *base])
    assert "give two texts, or --couples FILE" in cli_error(["similarity", "only one", *base])
    assert "--df/--corpus: give at most one" in cli_error(["similarity", "a", "b", *base, "--df", vec])
    assert "--df/--corpus: give one: a df file, a corpus" in cli_error(
        ["train", "--couples", str(files / "couples.tsv"), "--vectors", vec, "--out", str(tmp_path / "t.npz")])
    assert "--frequencies: expected 'corpus' or 'wordfreq:<language>'" in cli_error(
        ["similarity", "a", "b", "--vectors", vec, "--frequencies", "nope"])
    assert "--workers: must be at least 1, got 0" in cli_error(["similarity", "a", "b", *base, "--workers", "0"])


def _module(args, cwd, environ) -> subprocess.Popen:
    """``python -W error -m repro ARGS`` started in a fresh process: every warning is an error, or a line."""
    env = {**environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    return subprocess.Popen([sys.executable, "-W", "error", "-m", "repro", *map(str, args)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_modules(runs, cwd) -> list[subprocess.CompletedProcess]:
    """:func:`_module` of each argument list, all started together (none may read what another
    writes). Several together compile for themselves: JAX warns when it reads a cache entry that
    another process is still writing, and a warning is an error here."""
    environ = compilecache.without() if len(runs) > 1 else os.environ
    procs = [_module(args, cwd, environ) for args in runs]
    outs = [p.communicate() for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, *out) for p, out in zip(procs, outs)]


def run_module(args, cwd) -> subprocess.CompletedProcess:
    """``python -W error -m repro ARGS`` in a fresh process: every warning is an error, or a line."""
    return run_modules([args], cwd)[0]


def test_similarity_of_two_texts_prints_its_score_and_nothing_else(files, tmp_path):
    assert run_module(["vectors", files / "vec.txt", tmp_path / "folder"], tmp_path).returncode == 0
    outs = run_modules([["similarity", "Alpha beta", "beta gamma", "--vectors", vectors, "--corpus", files / "corpus.txt"]
                        for vectors in (files / "vec.txt", tmp_path / "folder")], tmp_path)
    for out in outs:
        assert out.returncode == 0 and out.stderr == ""
        assert out.stdout.count("\n") == 1 and -1 <= float(out.stdout) <= 1  # the shipped default's cosine


def test_every_command_runs_without_a_warning_under_W_error(files, tmp_path):
    (tmp_path / "known.txt").write_text("Alpha beta!\nGAMMA, delta and zeta\n")
    runs = {
        "vectors": ["vectors", files / "vec.txt", tmp_path / "folder"],
        "encode": ["encode", tmp_path / "known.txt", "--vectors", files / "vec.txt", "--corpus", files / "corpus.txt",
                   "--out", tmp_path / "X.npy"],
        "train": ["train", "--couples", files / "couples.tsv", "--vectors", tmp_path / "folder", "--corpus",
                  files / "corpus.txt", "--out", tmp_path / "enc.npz", "--kappa", "40", "--n-max", "4",
                  "--max-epochs", "3"],
        "similarity": ["similarity", "--couples", files / "couples.tsv", "--model", tmp_path / "enc.npz", "--out",
                       tmp_path / "scores.txt", "--quiet"],
        "evaluate": ["evaluate", "--couples", files / "couples.tsv", "--model", tmp_path / "enc.npz", "--metric", "cosine"],
    }
    # in three rounds, each started together: a command starts after those whose files it reads
    outs = {}
    for names in (("vectors", "encode"), ("train",), ("similarity", "evaluate")):
        outs.update(zip(names, run_modules([runs[n] for n in names], tmp_path)))
    assert list(outs) == list(runs)
    for name, out in outs.items():
        assert out.returncode == 0 and out.stderr == "", (name, out.stderr[-2000:])
    assert json.loads(out.stdout)["metric"] == "cosine"
    assert np.load(tmp_path / "X.npy").shape == (2, 5) and np.loadtxt(tmp_path / "scores.txt").shape == (80,)


def test_metric_cosine_from_the_command_line(files, tmp_path, capsys):
    base = ["--vectors", str(files / "vec.txt"), "--corpus", str(files / "corpus.txt")]
    paper = [*base, "--pretrained", "paper"]  # the paper's weights: by default minus the Euclidean distance
    assert cli.main(["similarity", "alpha beta gamma", "beta delta", *paper, "--metric", "cosine"]) == 0
    cos = float(capsys.readouterr().out)
    assert cli.main(["similarity", "alpha beta gamma", "beta delta", *paper]) == 0
    euc = float(capsys.readouterr().out)
    enc = Encoder.pretrained(str(files / "vec.txt"), corpus=(files / "corpus.txt").read_text().splitlines(),
                             model="paper")
    assert cos == pytest.approx(enc.similarity(["alpha beta gamma"], ["beta delta"], metric="cosine")[0], abs=1e-6)
    assert euc == pytest.approx(enc.similarity(["alpha beta gamma"], ["beta delta"])[0], abs=1e-6)
    assert -1 < cos < 1 and cos != euc and euc < 0

    # evaluate scores by the metric asked for, or the one the model records, and says which
    assert cli.main(["train", "--couples", str(files / "couples.tsv"), *base, "--out", str(tmp_path / "enc.npz"),
                     "--kappa", "40", "--n-max", "4", "--max-epochs", "3"]) == 0
    assert json.loads((tmp_path / "enc.json").read_text())["metric"] == "euclidean"
    capsys.readouterr()
    results = {}
    for metric in (None, "cosine", "euclidean"):
        argv = ["evaluate", "--couples", str(files / "couples.tsv"), "--model", str(tmp_path / "enc.npz")]
        assert cli.main(argv + (["--metric", metric] if metric else [])) == 0
        results[metric] = json.loads(capsys.readouterr().out)
    why = {m: r.pop("metric_from") for m, r in results.items()}
    assert results[None] == results["euclidean"] and results[None]["metric"] == "euclidean"
    assert results["cosine"]["metric"] == "cosine" and results["cosine"]["threshold"] != results[None]["threshold"]
    assert why == {None: "the model's: the distance it was trained under (euclidean, the paper's)",
                   "cosine": "--metric", "euclidean": "--metric"}


def test_a_model_trained_under_the_cosine_is_evaluated_under_it(files, tmp_path, capsys):
    """Issue 35, item 6: the training distance is the model's default metric; --metric overrides
    it; a file written before that keeps its recorded metric, and evaluate says how it was trained."""
    base = ["--vectors", str(files / "vec.txt"), "--corpus", str(files / "corpus.txt")]
    out = str(tmp_path / "cos.npz")
    assert cli.main(["train", "--couples", str(files / "couples.tsv"), *base, "--out", out, "--kappa", "40",
                     "--n-max", "4", "--max-epochs", "3", "--distance", "cosine"]) == 0
    meta = json.loads((tmp_path / "cos.json").read_text())
    assert (meta["metric"], meta["metric_from"]) == ("cosine", "training")
    capsys.readouterr()

    def evaluate(*extra):
        assert cli.main(["evaluate", "--couples", str(files / "couples.tsv"), "--model", out, *extra]) == 0
        return json.loads(capsys.readouterr().out)

    default, cosine, euclidean = evaluate(), evaluate("--metric", "cosine"), evaluate("--metric", "euclidean")
    assert default["metric"] == "cosine"
    assert default["metric_from"] == "the model's: the distance it was trained under (cosine)"
    assert {**default, "metric_from": "--metric"} == cosine and euclidean["metric"] == "euclidean"
    enc = Encoder.load(out)
    pairs = [line.split("\t") for line in (files / "couples.tsv").read_text().splitlines()]
    s = enc.similarity([p[0] for p in pairs], [p[1] for p in pairs])
    np.testing.assert_array_equal(s, enc.similarity([p[0] for p in pairs], [p[1] for p in pairs], metric="cosine"))
    y = np.array([int(p[2]) for p in pairs])
    assert default["split_error"] == metrics.split_error(s, y, s, y)[0]
    assert euclidean["threshold"] < 0 and -1 <= default["threshold"] <= 1  # minus distances against a cosine
    # a file written before metric_from: its recorded metric, and a hint at the training distance
    del meta["metric_from"]
    meta["metric"] = "euclidean"
    (tmp_path / "cos.json").write_text(json.dumps(meta))
    old = evaluate()
    assert old["metric"] == "euclidean" and {**old, "metric_from": "--metric"} == euclidean
    assert old["metric_from"] == ("the model's, as its file records (a file older than the training distance as "
                                  "default metric; it was trained under cosine: --metric cosine scores it the way "
                                  "it was learned)")
    assert Encoder.load(out).metric_from == "file"
    meta["metric_from"] = "guess"
    (tmp_path / "cos.json").write_text(json.dumps(meta))
    assert cli.main(["evaluate", "--couples", str(files / "couples.tsv"), "--model", out]) == 1
    assert capsys.readouterr().err == (f"error: {out}: metric_from: expected one of given, training, shipped, "
                                       "default, file, got 'guess'\n")
    with pytest.raises(SystemExit):
        cli.main(["similarity", "a", "b", *base, "--metric", "dot"])
    assert "invalid choice: 'dot'" in capsys.readouterr().err


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_every_scoring_path_removes_the_common_components(files, tmp_path, capsys, metric):
    """An encoder saved after fit_components: similarity, evaluate and the commands encode,
    similarity and evaluate all score the vectors that transform gives (the components removed),
    not the plain model's."""
    from repro.core import metrics
    from repro.core.textmetric import vector_scores

    corpus = (files / "corpus.txt").read_text().splitlines()
    enc = Encoder.pretrained(str(files / "vec.txt"), corpus=corpus, metric=metric)
    pairs = [line.split("\t") for line in (files / "couples.tsv").read_text().splitlines()]
    a, b, labels = [p[0] for p in pairs], [p[1] for p in pairs], np.array([int(p[2]) for p in pairs])
    plain = enc.similarity(a, b)
    enc.fit_components(a + b, k=2)
    want = vector_scores(enc.transform(a), enc.transform(b), metric)
    assert np.abs(want - plain).max() > 1e-3  # the components matter here
    np.testing.assert_allclose(enc.similarity(a, b), want, rtol=1e-6, atol=1e-6)
    model = str(tmp_path / "cc.npz")
    enc.save(model)

    texts = tmp_path / "a.txt"
    texts.write_text("\n".join(a) + "\n")
    assert cli.main(["encode", str(texts), "--model", model, "--out", str(tmp_path / "a.npy")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "a.npy"), enc.transform(a), rtol=1e-6, atol=1e-7)
    out = str(tmp_path / "s.txt")
    assert cli.main(["similarity", "--couples", str(files / "couples.tsv"), "--model", model, "--out", out]) == 0
    np.testing.assert_allclose(np.loadtxt(out), want, rtol=1e-5, atol=1e-6)
    capsys.readouterr()
    assert cli.main(["evaluate", "--couples", str(files / "couples.tsv"), "--model", model]) == 0
    result = json.loads(capsys.readouterr().out)
    assert abs(result["split_error"] - metrics.split_error(want, labels, want, labels)[0]) < 1e-9


def test_train_from_a_start_chooses_on_validation_and_reports(files, capsys, cli_error, tmp_path):
    base = ["--couples", str(files / "couples.tsv"), "--vectors", str(files / "vec.txt"), "--corpus",
            str(files / "corpus.txt"), "--kappa", "40", "--n-max", "5"]
    start = str(tmp_path / "start.npz")
    assert cli.main(["train", *base, "--out", start]) == 0
    capsys.readouterr()
    out = str(tmp_path / "chosen.npz")
    assert cli.main(["train", *base, "--init", start, "--validation", "0.25", "--shrink", "0.5", "--out", out]) == 0
    printed = capsys.readouterr().out
    assert "train: couples: 60 to train, 20 to validate (held out: 25% of the couples of each class, drawn from seed 0)" \
        in printed
    assert f"validation split error: start ({start})" in printed and "candidates: start " in printed
    assert "shrunk-0.5" in printed and "warm" in printed and "paper" in printed and "; kept: " in printed
    meta = json.loads((tmp_path / "chosen.json").read_text())
    assert meta["provenance"]["fit"]["init"] == start
    assert set(meta["provenance"]["fit"]["validation_errors"]) == {"start", "shrunk-0.5", "warm", "paper"}
    assert "--validation: a share of the couples must lie strictly between 0 and 1, got 2" in cli_error(
        ["train", *base, "--validation", "2", "--out", out])
    assert "--init: 'nowhere.npz' is neither a weights or encoder file nor one of paper, shipped, default, best, wikivar" \
        in cli_error(["train", *base, "--init", "nowhere.npz", "--out", out])
