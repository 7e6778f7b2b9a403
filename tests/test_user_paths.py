"""What a new user meets (issue 26): repro df, the tokeniser option and its warning, the sparse-df
warning, evaluate's threshold on the scores' scale, progress of training and df counting, and
the exact wording of the errors a user's bad input gets."""

from __future__ import annotations

import io
import json
import sys
import warnings

import numpy as np
import pytest

from repro import cli, progress
from repro.core import metrics
from repro.io import store
from repro.commands.evaluate import js_bins_from, protocol, score_threshold
from repro.words.docfreq import DocFreq
from repro.encode.encoder import Encoder, SparseDfWarning, TokeniserWarning
from repro.words.text import drops_letters, tokenise, tokenise_unicode

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "zürich", "café", "3.12"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("user")
    m = np.random.default_rng(0).standard_normal((len(WORDS), 4)).astype(np.float32)
    store.save_vectors(str(d / "vec"), WORDS, m)
    (d / "corpus.txt").write_text("alpha beta gamma\nbeta delta\nalpha alpha\n")
    (d / "corpus.jsonl").write_text('"alpha beta gamma"\n["beta", "delta"]\n{"text": "alpha alpha"}\n')
    return d


def error_line(capsys, argv) -> str:
    """The one stderr line of a command that fails with status 1."""
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
    return err[len("error: "):-1]


# ---- repro df ------------------------------------------------------------------------------

def test_repro_df_counts_the_texts_of_any_format_encode_reads(files, tmp_path, capsys):
    for name in ("corpus.txt", "corpus.jsonl"):
        out = tmp_path / (name + ".npz")
        assert cli.main(["df", str(files / name), "--out", str(out)]) == 0
        assert capsys.readouterr().out == f"df: 4 words in 3 texts -> {out}\n"
        freq = DocFreq.load(str(out))
        assert freq.words == ["alpha", "beta", "delta", "gamma"] and freq.df.tolist() == [2, 2, 1, 1]
        assert freq.n_docs == 3
    # the file is what --df takes: the same vectors as counting the corpus in the encoder
    assert cli.main(["encode", str(files / "corpus.txt"), "--vectors", str(files / "vec"), "--df", str(out),
                     "--out", str(tmp_path / "a.npy")]) == 0
    assert cli.main(["encode", str(files / "corpus.txt"), "--vectors", str(files / "vec"), "--corpus",
                     str(files / "corpus.txt"), "--out", str(tmp_path / "b.npy")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"))


def test_repro_df_with_the_unicode_tokeniser(files, tmp_path, capsys):
    (tmp_path / "u.txt").write_text("Zürich Café 3.12\nzürich COVID-19\n")
    assert cli.main(["df", str(tmp_path / "u.txt"), "--out", str(tmp_path / "u.npz"), "--tokeniser", "unicode"]) == 0
    freq = DocFreq.load(str(tmp_path / "u.npz"))
    assert dict(zip(freq.words, freq.df.tolist())) == {"zürich": 2, "café": 1, "3.12": 1, "covid-19": 1}
    assert cli.main(["df", str(tmp_path / "u.txt"), "--out", str(tmp_path / "p.npz")]) == 0
    assert DocFreq.load(str(tmp_path / "p.npz")).words == ["0", "caf", "covid0", "rich", "z"]


def test_repro_df_errors(files, tmp_path, capsys):
    assert error_line(capsys, ["df", str(files / "corpus.txt"), "--out", str(tmp_path / "df.txt")]) == \
        f"{tmp_path / 'df.txt'}: the df file must end in .npz"
    (tmp_path / "punct.txt").write_text("!!!\n...\n")
    assert error_line(capsys, ["df", str(tmp_path / "punct.txt"), "--out", str(tmp_path / "df.npz")]) == \
        f"{tmp_path / 'punct.txt'}: no words in its 2 texts (after the paper tokeniser)"
    assert error_line(capsys, ["df", str(tmp_path / "none.txt"), "--out", str(tmp_path / "df.npz")]) == \
        f"{tmp_path / 'none.txt'}: no such file"
    assert not (tmp_path / "df.npz").exists()


def test_df_counting_shows_a_bar_only_when_slow(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    DocFreq.from_corpus(["a b"] * 3000, progress=True)
    assert term.getvalue() == ""  # well under a second
    monkeypatch.setattr(progress, "DELAY", 0.0)
    DocFreq.from_corpus(["a b"] * 3000, progress=True)
    assert "count df: 100%" in term.getvalue() and "3000/3000" in term.getvalue()


# ---- the tokeniser ------------------------------------------------------------------------------

def test_the_two_tokenisers_on_the_issue_cases():
    assert tokenise("Zürich Café 3.12 COVID-19") == ["z", "rich", "caf", "0", "covid0"]  # the paper's rule
    assert tokenise_unicode("Zürich Café 3.12 COVID-19, 1,234.5 end.Next") == [
        "zürich", "café", "3.12", "covid-19", "1,234.5", "end", "next"]
    assert drops_letters("Café") and drops_letters("Ωmega") and not drops_letters("a – b (c) 3.12")


def test_the_encoder_warns_once_when_the_paper_rule_drops_letters(files):
    enc = Encoder.pretrained(str(files / "vec"), corpus=["alpha beta"])
    with pytest.warns(TokeniserWarning) as caught:
        enc.transform(["alpha", "Zürich beta", "Café alpha"])
    assert [str(w.message) for w in caught if w.category is TokeniserWarning] == [
        "2 of 3 texts hold letters outside a-z, which the paper's tokeniser drops (first: texts[1], "
        "'Zürich beta' -> ['z', 'rich', 'beta']); tokeniser='unicode' (--tokeniser unicode) keeps them"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.transform(["Café alpha"])  # once per encoder
        enc.transform([["zürich"]])  # token lists are taken as they are


def test_the_unicode_tokeniser_keeps_letters_and_numbers_and_is_saved(files, tmp_path):
    enc = Encoder.pretrained(str(files / "vec"), corpus=["Zürich café", "3.12 alpha"], tokeniser="unicode")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = enc.transform(["Zürich, Café 3.12"])
    np.testing.assert_array_equal(x, enc.transform([["zürich", "café", "3.12"]]))
    assert np.abs(x).sum() > 0
    enc.save(str(tmp_path / "u.npz"))
    assert json.loads((tmp_path / "u.json").read_text())["tokeniser"] == "unicode"
    back = Encoder.load(str(tmp_path / "u.npz"))
    np.testing.assert_array_equal(back.transform(["Zürich, Café 3.12"]), x)
    with pytest.raises(ValueError, match=r"^tokeniser: expected one of paper, unicode, got 'nltk'$"):
        Encoder.pretrained(str(files / "vec"), corpus=["alpha"], tokeniser="nltk")


def test_the_command_line_tokeniser(files, tmp_path, capsys):
    (tmp_path / "u.txt").write_text("Zürich café\n")
    base = ["--vectors", str(files / "vec"), "--corpus", str(files / "corpus.txt")]
    assert cli.main(["encode", str(tmp_path / "u.txt"), *base, "--out", str(tmp_path / "p.npy")]) == 0
    assert "warning: 1 of 1 texts hold letters outside a-z" in capsys.readouterr().err
    assert cli.main(["encode", str(tmp_path / "u.txt"), *base, "--out", str(tmp_path / "u.npy"),
                     "--tokeniser", "unicode"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert not np.load(tmp_path / "p.npy").any() and np.load(tmp_path / "u.npy").any()


# ---- a df source that does not cover the texts ----------------------------------------------------

def test_the_encoder_warns_once_when_many_words_are_not_in_the_df_source(files, tmp_path):
    texts = [["alpha", "beta", "gamma", "delta", "epsilon"]] * 30  # 150 known words, 30 unseen (epsilon)
    enc = Encoder.pretrained(str(files / "vec"), corpus=["alpha beta gamma delta"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.transform(texts)  # 20%: not above the bar
    sparse = Encoder.pretrained(str(files / "vec"), corpus=["alpha beta"])
    with pytest.warns(SparseDfWarning) as caught:
        sparse.transform(texts)
    assert [str(w.message) for w in caught] == [
        "60% of the encoded words with a vector (90 of 150) are not in the df source (1 documents): they get "
        "df = 1 and are ordered by spelling; count df on a larger corpus like these texts (tens of thousands: "
        "repro df)"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparse.transform(texts)  # once per encoder
        Encoder.pretrained(str(files / "vec"), corpus=["alpha beta"]).transform(texts[:3])  # 9 unseen: too few
    # a small example warns too, from 10 unseen words on (issue 35, item 7: it needed 100 known words)
    with pytest.warns(SparseDfWarning) as caught:
        Encoder.pretrained(str(files / "vec"), corpus=["alpha beta"]).transform(texts[:4])
    assert str(caught[0].message).startswith("60% of the encoded words with a vector (12 of 20) are not in the df "
                                             "source (1 documents)")
    # a saved encoder keeps which words its df source listed
    sparse.save(str(tmp_path / "s.npz"))
    with pytest.warns(SparseDfWarning, match="^60% of the encoded words"):
        Encoder.load(str(tmp_path / "s.npz")).transform(texts)


def test_train_warns_of_a_sparse_df_source_as_evaluate_does(files, tmp_path, capsys):
    """Issue 35, item 7: repro train printed nothing where evaluate, on the same data, warned."""
    couples = [("alpha beta gamma", "beta gamma delta"), ("alpha beta gamma", "zeta eta theta"),
               ("delta epsilon", "gamma delta epsilon"), ("delta epsilon", "eta theta zeta")] * 6
    (tmp_path / "c.tsv").write_text("".join(f"{a}\t{b}\t{1 - i % 2}\n" for i, (a, b) in enumerate(couples)))
    (tmp_path / "small.txt").write_text("alpha beta\n")
    base = ["--couples", str(tmp_path / "c.tsv"), "--vectors", str(files / "vec"), "--corpus", str(tmp_path / "small.txt")]
    assert cli.main(["train", *base, "--out", str(tmp_path / "m.npz"), "--kappa", "20", "--n-max", "4",
                     "--max-epochs", "2", "--quiet"]) == 0
    train = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert cli.main(["evaluate", *base, "--pretrained", "paper", "--quiet"]) == 0
    evaluate = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    # 132 words with a vector, 102 unseen by the one-document df source (all but 12 alphas and 18 betas)
    assert train == evaluate == [
        "warning: 77% of the encoded words with a vector (102 of 132) are not in the df source (1 documents): "
        "they get df = 1 and are ordered by spelling; count df on a larger corpus like these texts (tens of "
        "thousands: repro df)"]


# ---- evaluate's threshold --------------------------------------------------------------------------

def test_evaluate_prints_the_threshold_on_the_scores_scale(files, tmp_path, capsys):
    assert score_threshold(0.25, -2.0, 2.0) == -1.0
    rng = np.random.default_rng(3)
    lines = []
    for i in range(60):
        k = WORDS[i % 4]
        lines.append(f"{k} {WORDS[4 + i % 3]}\t{k if i % 2 else WORDS[(i + 1) % 4]} {rng.choice(WORDS[4:8])}\t{i % 2}")
    (tmp_path / "c.tsv").write_text("\n".join(lines) + "\n")
    base = ["--vectors", str(files / "vec"), "--corpus", str(files / "corpus.txt"), "--pretrained", "paper"]  # minus distances
    assert cli.main(["evaluate", "--couples", str(tmp_path / "c.tsv"), *base]) == 0
    result = json.loads(capsys.readouterr().out)
    assert cli.main(["similarity", "--couples", str(tmp_path / "c.tsv"), *base, "--out", str(tmp_path / "s.txt")]) == 0
    scores = np.loadtxt(tmp_path / "s.txt")
    labels = np.array([int(line[-1]) for line in lines])
    assert (scores <= 0).all() and result["threshold"] <= 0  # minus distances, and a threshold among them
    lo, hi = scores.min(), scores.max()
    assert result["threshold_normalised"] == round(metrics.split_error(scores, labels, scores, labels)[1], 3)
    assert result["threshold"] == pytest.approx(lo + result["threshold_normalised"] * (hi - lo), abs=1e-5)
    called = scores > result["threshold"] + 1e-7  # the split at the printed threshold gives the printed error
    fpr, fnr = called[labels == 0].mean(), (~called[labels == 1]).mean()
    assert (fpr + fnr) / 2 == pytest.approx(result["split_error"])
    assert set(result["about"]) == {"split_error", "threshold", "threshold_normalised", "js_divergence"}
    # 60 couples: fewer JS bins than the paper's 10,000, and it says so (issue 35, item 5)
    assert result["js_bins"] == 15 and result["js_divergence"] == metrics.js_divergence(scores, scores, labels, bins=15)
    assert result["js_bins_from"] == (
        "15 bins on [-1, 1.5], +1 in every bin: 5 x ceil(sqrt(30) / 2) for the smaller class's 30 couples; with 60 "
        "test couples (under 1,000) the paper's 10,000 bins leave nearly every score alone in its bin, and the "
        "divergence would depend only on the label counts")
    assert result["metric_from"] == "the paper's (--pretrained paper: minus the Euclidean distance, eq. 2)"
    assert js_bins_from(712, 712) == ("the paper's 10,000 bins on [-1, 1.5], +1 in every bin (1,424 test couples, "
                                      "at least 1,000)")  # the smallest test split of the tables


def test_counts_in_messages_have_thousands_separators(files, tmp_path, capsys):
    """Issue 35, item 7: "100000 texts" and "100,000" in one run."""
    (tmp_path / "many.txt").write_text("alpha beta\n" * 1200)
    base = ["--vectors", str(files / "vec"), "--corpus", str(files / "corpus.txt"), "--pretrained", "paper", "--quiet"]
    assert cli.main(["encode", str(tmp_path / "many.txt"), *base, "--out", str(tmp_path / "m.npy")]) == 0
    assert capsys.readouterr().out.startswith(f"encode: 1,200 texts -> {tmp_path / 'm.npy'} (4-d) in ")
    (tmp_path / "many.tsv").write_text("alpha beta\tbeta gamma\n" * 1001)
    assert cli.main(["similarity", "--couples", str(tmp_path / "many.tsv"), *base, "--out", str(tmp_path / "s.txt")]) == 0
    assert capsys.readouterr().out == f"similarity: 1,001 scores -> {tmp_path / 's.txt'}\n"
    (tmp_path / "empty.txt").write_text("zzz\n" * 1500)
    assert cli.main(["encode", str(tmp_path / "empty.txt"), *base, "--out", str(tmp_path / "e.npy")]) == 0
    assert "warning: 1,500 of 1,500 texts have no word with a vector" in capsys.readouterr().err


def test_evaluate_shows_the_normalised_threshold_as_its_grid_point():
    """Issue 35, item 7: 0.814, not 0.8140000000000001 (linspace's point); the threshold on the
    scores' scale is computed from the point itself, as the protocol applies it."""
    assert repr(float(metrics.THRESHOLDS[814])) == "0.8140000000000001"
    # unrelated scores up to 0.5, related from 0.8145: every threshold in [0.5, 0.8145) splits the
    # validation couples without error, and the largest grid point among them is THRESHOLDS[814]
    val = np.array([0.0, 0.2, 0.5, 0.8145, 0.9, 1.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    test = np.array([0.1, 0.8141, 0.82, 0.95])  # 0.8141: an unrelated couple just above the threshold
    yt = np.array([0, 0, 1, 1])
    numbers = protocol(val * 4 - 2, y, test * 4 - 2, yt)  # on a scale of [-2, 2]
    assert repr(numbers["threshold_normalised"]) == "0.814"
    assert numbers["threshold"] == -2 + metrics.THRESHOLDS[814] * 4  # not -2 + 0.814 * 4
    assert numbers["split_error"] == 0.25  # one false positive of two unrelated couples, no false negative
    assert (numbers["couples"], numbers["related"], numbers["js_bins"]) == (4, 2, 5)


# ---- the wording of errors ---------------------------------------------------------------------------

def test_error_wording(files, tmp_path, capsys):
    base = ["--vectors", str(files / "vec"), "--corpus", str(files / "corpus.txt")]
    (tmp_path / "nolabel.jsonl").write_text('{"a": "alpha", "b": "beta"}\n')
    assert error_line(capsys, ["evaluate", "--couples", str(tmp_path / "nolabel.jsonl"), *base]) == \
        f'{tmp_path / "nolabel.jsonl"}: line 1: no label ("label": 0 or 1)'

    np.savez(tmp_path / "w.npz", weights=np.ones(3))
    assert error_line(capsys, ["encode", str(files / "corpus.txt"), "--model", str(tmp_path / "w.npz"),
                               "--out", str(tmp_path / "x.npy")]) == \
        f"{tmp_path / 'w.npz'}: not an encoder file (missing df, n_docs, idf)"
    (tmp_path / "text.npz").write_text("alpha 1 2\n")
    assert error_line(capsys, ["encode", str(files / "corpus.txt"), "--model", str(tmp_path / "text.npz"),
                               "--out", str(tmp_path / "x.npy")]) == \
        f"{tmp_path / 'text.npz'}: not an encoder file (not a NumPy .npz archive)"
    np.savez(tmp_path / "obj.npz", weights=np.array([{"a": 1}], dtype=object), df=np.ones(2), n_docs=1, idf=np.ones(2))
    assert error_line(capsys, ["encode", str(files / "corpus.txt"), "--model", str(tmp_path / "obj.npz"),
                               "--out", str(tmp_path / "x.npy")]) == \
        f"{tmp_path / 'obj.npz'}: not an encoder file (it holds Python objects, which are never unpickled)"
    assert error_line(capsys, ["similarity", "a", "b", "--vectors", str(files / "vec"), "--df", str(tmp_path / "w.npz")]) \
        == f"{tmp_path / 'w.npz'}: not a df file (missing df, n_docs)"

    (tmp_path / "bad.txt").write_bytes(b"alpha\nbeta \xff gamma\n")
    assert error_line(capsys, ["encode", str(tmp_path / "bad.txt"), *base, "--out", str(tmp_path / "x.npy")]) == \
        f"{tmp_path / 'bad.txt'}: line 2: not UTF-8 text (invalid start byte at byte 6 of the line)"

    couples = tmp_path / "c.tsv"
    couples.write_text("alpha\tbeta\t1\ngamma\tdelta\t0\n")
    train = ["train", "--couples", str(couples), *base, "--out", str(tmp_path / "e.npz")]
    assert error_line(capsys, train + ["--kappa", "-1"]) == "--kappa: must be a positive number, got -1"
    assert error_line(capsys, train + ["--n-max", "0"]) == "--n-max: must be at least 1, got 0"
    assert error_line(capsys, train + ["--max-epochs", "0"]) == "--max-epochs: must be at least 1, got 0"
    assert error_line(capsys, train + ["--seed", "-2"]) == "--seed: must be at least 0, got -2"


def test_a_model_whose_recorded_vectors_moved_says_so(files, tmp_path, capsys):
    store.save_vectors(str(tmp_path / "vec"), *store.load_vectors(str(files / "vec")))
    enc = Encoder.pretrained(str(tmp_path / "vec"), corpus=["alpha beta"])
    enc.save(str(tmp_path / "e.npz"))
    (tmp_path / "vec").rename(tmp_path / "moved")
    argv = ["similarity", "alpha", "beta", "--model", str(tmp_path / "e.npz")]
    assert error_line(capsys, argv) == (f"{tmp_path / 'e.npz'}: the vectors it was saved with, {tmp_path / 'vec'}, "
                                        "are gone (moved?): give them with --vectors (vectors= in Python)")
    assert cli.main(argv + ["--vectors", str(tmp_path / "moved")]) == 0


def test_training_shows_one_bar_over_the_kappa_search_and_the_final_run(files, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    rng = np.random.default_rng(1)
    couples, labels = [], []
    for i in range(80):  # related couples share their first word
        k, other = WORDS[i % 4], WORDS[(i + 1) % 4]
        couples.append(([k, *rng.choice(WORDS[4:8], 3)], [k if i % 2 else other, *rng.choice(WORDS[4:8], 3)]))
        labels.append(i % 2)
    enc = Encoder(str(files / "vec"), corpus=["alpha beta"], n_max=4, progress=True)
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr("repro.core.crossval.KAPPAS_PER_CALL", {"cpu": 2, "gpu": 2})
    enc.fit(couples, labels, grid=[10.0, 20.0, 40.0], max_epochs=3)  # two calls of the search, then the run
    last = term.getvalue().rsplit("\r", 1)[-1]
    assert last.startswith("train: 100%") and "3/3" in last
    term.truncate(0)
    enc.progress = False
    enc.fit(couples, labels, kappa=10.0, max_epochs=3)
    assert term.getvalue() == ""
