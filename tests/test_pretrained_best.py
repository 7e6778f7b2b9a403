"""The shipped winner of the learned family: experiments.ship_weights chooses it from the score
file's family choices, and Encoder.pretrained(model="best") (the default) applies it with the
options its .json records, bit for bit as Encoder(..., weights=, **options) does."""

from __future__ import annotations

import os
import json

import numpy as np
import pytest

from experiments import ship_weights
from repro import cli
from repro.io import store
from repro.words.docfreq import DocFreq
from repro.encode.encoder import PRETRAINED, SHIPPED, SHIPPED_BEST, Encoder
from repro.errors import InputError
from repro.core.modelrecord import ModelRecord

WORDS = [f"w{i}" for i in range(40)]


def record(seed: int, distance: str = "euclidean") -> ModelRecord:
    w = np.random.default_rng(seed).uniform(0.1, 1.0, 6).astype(np.float32)
    return ModelRecord(weights=w, history=np.zeros(2), etas=np.zeros(2), epochs=2, loss="median", kappa=40.0,
                       kappa_source="cv", lam=1e-3, distance=distance, seed=0, train_pairs=100)


@pytest.fixture
def shipped(tmp_path):
    """A model, a family folder of three members and a score file whose choices rank them."""
    store.save_model(str(tmp_path / "median.npz"), record(0))
    fam = tmp_path / "family"
    fam.mkdir()
    for i, key in enumerate(("centre-euclidean", "sif-cosine", "cc-euclidean")):
        store.save_model(str(fam / f"{key}.npz"), record(i + 1, key.rsplit("-", 1)[1]))

    def scores(euclidean, cosine):
        path = tmp_path / "scores.json"
        path.write_text(json.dumps({"setting": "wikivar", "family": {"chosen": {
            "euclidean": {"member": euclidean[0], "validation_split_error": euclidean[1]},
            "cosine": {"member": cosine[0], "validation_split_error": cosine[1]}}}}))
        return str(path)

    def ship(scores_path):
        argv = ["--model", str(tmp_path / "median.npz"), "--out", str(tmp_path / "out" / "wikivar-median.npz"),
                "--scores", scores_path, "--family", str(fam), "--best-out", str(tmp_path / "out" / "wikivar-best.npz")]
        assert ship_weights.main(argv) == 0
        return str(tmp_path / "out" / "wikivar-best.npz")

    return scores, ship, fam


def test_ship_weights_picks_the_lowest_validation_error(shipped, tmp_path):
    scores, ship, fam = shipped
    best = ship(scores(("centre-euclidean", 0.11), ("sif-cosine", 0.09)))
    w, meta = store.load_weights(best)
    assert np.array_equal(w, store.load_model(str(fam / "sif-cosine.npz")).weights)
    assert meta["member"] == "sif-cosine" and meta["metric"] == "cosine" and meta["validation_split_error"] == 0.09
    assert meta["encoder_options"] == {"word_weights": "sif", "whiten": None, "components": 0, "metric": "cosine"}
    assert meta["distance"] == "cosine" and meta["source"] == "sif-cosine.npz"
    # the paper's weights ship beside it, and each model its coefficient table
    assert np.array_equal(store.load_weights(str(tmp_path / "out" / "wikivar-median.npz"))[0], record(0).weights)
    assert (tmp_path / "out" / "coefficients.npz").exists() and (tmp_path / "out" / "coefficients-best.npz").exists()
    # a tie goes to the Euclidean metric; cc becomes one common component of the word vectors
    best = ship(scores(("cc-euclidean", 0.09), ("sif-cosine", 0.09)))
    meta = store.load_weights(best)[1]
    assert meta["member"] == "cc-euclidean" and meta["metric"] == "euclidean"
    assert meta["encoder_options"] == {"word_weights": None, "whiten": None, "word_components": 1, "components": 0,
                                       "metric": "euclidean"}


def test_ship_weights_without_a_family_choice_is_one_line(shipped, tmp_path):
    _, ship, _ = shipped
    (tmp_path / "bare.json").write_text(json.dumps({"setting": "wikivar"}))
    with pytest.raises(InputError, match="no family choice"):
        ship(str(tmp_path / "bare.json"))


def data():
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((len(WORDS), 6)).astype(np.float32)
    corpus = [" ".join(rng.choice(WORDS, rng.integers(2, 9))) for _ in range(80)]
    texts = [" ".join(rng.choice(WORDS, rng.integers(1, 12))) for _ in range(30)]
    return (WORDS, matrix), corpus, texts


def test_the_default_is_the_best_model_with_its_options_bit_for_bit():
    vectors, corpus, texts = data()
    w, meta = store.load_weights(SHIPPED_BEST)
    options = meta["encoder_options"]
    assert PRETRAINED["best"] == SHIPPED_BEST and meta["member"] in meta["source"]
    enc = Encoder.pretrained(vectors, corpus=corpus, model="best")
    ref = Encoder(vectors, corpus=corpus, weights=w, **options)
    assert enc.transform(texts).tobytes() == ref.transform(texts).tobytes()
    assert enc.metric == options["metric"] == ref.metric
    assert enc.similarity(texts[:15], texts[15:]).tobytes() == ref.similarity(texts[:15], texts[15:]).tobytes()
    assert enc.provenance_["model"] == "best" and enc.provenance_["member"] == meta["member"]
    assert {k: enc.settings[k] for k in ("word_weights", "whiten", "components")} == \
        {k: options[k] for k in ("word_weights", "whiten", "components")}
    # a user's option overrides the model's
    assert Encoder.pretrained(vectors, corpus=corpus, model="best", metric="euclidean").metric == "euclidean"


def test_model_paper_is_the_papers_weights_as_before():
    vectors, corpus, texts = data()
    w, _ = store.load_weights(SHIPPED)
    enc = Encoder.pretrained(vectors, corpus=corpus, model="paper")
    ref = Encoder(vectors, corpus=corpus, weights=w)
    assert enc.transform(texts).tobytes() == ref.transform(texts).tobytes()
    assert enc.metric == "euclidean" and enc.provenance_["model"] == "paper"
    assert enc.settings["whiten"] is None and enc.settings["word_weights"] is None
    with pytest.raises(ValueError, match="model: expected one of"):
        Encoder.pretrained(vectors, corpus=corpus, model="newest")


def test_weights_path_applies_that_files_options(shipped, tmp_path):
    scores, ship, _ = shipped
    best = ship(scores(("centre-euclidean", 0.11), ("sif-cosine", 0.09)))
    vectors, corpus, texts = data()
    enc = Encoder.pretrained(vectors, corpus=corpus, weights_path=best)
    ref = Encoder(vectors, corpus=corpus, weights=store.load_weights(best)[0], word_weights="sif", metric="cosine")
    assert enc.transform(texts).tobytes() == ref.transform(texts).tobytes() and enc.metric == "cosine"
    assert enc.provenance_["model"] == best


def test_the_best_model_without_word_counts_is_one_clear_line(tmp_path):
    vectors, corpus, _ = data()
    if not store.load_weights(SHIPPED_BEST)[1]["encoder_options"]["whiten"]:
        pytest.skip("the shipped winner needs no word counts")
    freq = DocFreq.from_corpus(corpus)
    store.save_word_df(str(tmp_path / "df.npz"), freq.words, freq.df, freq.n_docs)  # no counts
    with pytest.raises(InputError) as err:
        Encoder.pretrained(vectors, str(tmp_path / "df.npz"), model="best")
    message = str(err.value)
    assert "\n" not in message and "word counts" in message
    for fix in ("corpus=", "repro df", "wordfreq:en", "model='paper'"):
        assert fix in message, fix
    Encoder.pretrained(vectors, str(tmp_path / "df.npz"), model="paper")  # the paper's weights need none
    freq.save(str(tmp_path / "counted.npz"))  # a df file with counts, as `repro df` writes it
    Encoder.pretrained(vectors, str(tmp_path / "counted.npz"), model="best")


def test_the_cli_flag(tmp_path, capsys):
    (words, matrix), corpus, texts = data()
    store.save_vectors(str(tmp_path / "vec"), words, matrix)
    (tmp_path / "corpus.txt").write_text("\n".join(corpus) + "\n")
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    base = ["--vectors", str(tmp_path / "vec"), "--corpus", str(tmp_path / "corpus.txt"), "--quiet"]
    for flag, model in (([], "default"), (["--pretrained", "default"], "default"), (["--pretrained", "best"], "best"),
                        (["--pretrained", "paper"], "paper")):
        out = str(tmp_path / f"X-{model}-{len(flag)}.npy")
        assert cli.main(["encode", str(tmp_path / "texts.txt"), *base, "--out", out, *flag]) == 0
        enc = Encoder.pretrained(str(tmp_path / "vec"), corpus=corpus, model=model)
        assert np.load(out).tobytes() == enc.transform(texts).tobytes(), (flag, model)
        capsys.readouterr()
        assert cli.main(["similarity", texts[0], texts[1], *base, *flag]) == 0
        score = float(capsys.readouterr().out)
        assert score == pytest.approx(float(enc.similarity([texts[0]], [texts[1]])[0]), abs=1e-6)
    assert cli.main(["encode", str(tmp_path / "texts.txt"), *base, "--out", str(tmp_path / "x.npy"),
                     "--pretrained", "paper"]) == 0
    with pytest.raises(SystemExit):
        cli.main(["encode", str(tmp_path / "texts.txt"), *base, "--out", str(tmp_path / "y.npy"), "--pretrained", "x"])
    assert "invalid choice: 'x'" in capsys.readouterr().err


def test_the_readme_names_the_shipped_winner():
    """The README says which member Encoder.pretrained() ships, as the shipped file records it."""
    import json
    import re

    from repro.evaluate import family

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "repro", "weights", "wikivar-best.json"), encoding="utf-8") as f:
        member = family.parse(json.load(f)["member"])
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = re.sub(r"\s+", " ", f.read())
    under = "1 - cos" if member.distance == "cosine" else "the Euclidean distance"
    assert f"the paper's weights learned {member.label}" in readme and under in member.label
