"""Word frequencies without a corpus (repro.words.wordfrequencies): fse's induced counts from a frequency
dict, the source names, and the one-line errors naming ``frequencies``."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from repro.evaluate import peers
from repro.words import wordfrequencies
from repro.errors import InputError


def test_induced_counts_are_fses_integers_with_21_for_a_missing_word():
    freq = {"the": 0.05, "cat": 1e-5}
    counts = wordfrequencies.induced_counts(["cat", "the", "zyzzyva"], freq)
    assert counts.tolist() == [int(1e-5 * (2 ** 31 - 1)), int(0.05 * (2 ** 31 - 1)), 21]
    assert counts.tolist() == [21474, 107374182, 21]
    p = peers.probabilities(counts)
    np.testing.assert_allclose(p, np.array([21474, 107374182, 21]) / (21474 + 107374182 + 21))


def test_word_counts_by_source(monkeypatch):
    monkeypatch.setattr(wordfrequencies, "frequency_dict", lambda lang: {"en": {"a": 0.5}}[lang])
    assert wordfrequencies.word_counts("wordfreq:en", ["a", "b"]).tolist() == [int(0.5 * (2 ** 31 - 1)), 21]
    assert wordfrequencies.word_counts("corpus", ["a", "b"], np.array([3, 4])).tolist() == [3, 4]
    with pytest.raises(InputError, match="^frequencies: 'corpus' needs a corpus"):
        wordfrequencies.word_counts("corpus", ["a", "b"])
    with pytest.raises(InputError, match=r"^frequencies: \(3,\) corpus counts for 2 words"):
        wordfrequencies.word_counts("corpus", ["a", "b"], np.array([1, 2, 3]))
    for bad in ("wordfreq", "wordfreq:", "fse:en", ""):
        with pytest.raises(InputError, match="^frequencies: expected 'corpus' or 'wordfreq:<language>'"):
            wordfrequencies.parse_source(bad)
    assert wordfrequencies.parse_source("wordfreq:de") == ("wordfreq", "de")


def test_a_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "wordfreq", None)  # import wordfreq raises ImportError
    with pytest.raises(InputError) as err:
        wordfrequencies.word_counts("wordfreq:en", ["a"])
    assert str(err.value).startswith("frequencies: 'wordfreq:en' needs the wordfreq package: pip install "
                                     "'repro-deboom2016[freq]'")
    assert "\n" not in str(err.value)


def test_the_real_list_when_installed():
    pytest.importorskip("wordfreq")
    counts = wordfrequencies.word_counts("wordfreq:en", ["the", "of", "qwzxqwzx"])
    assert counts[0] > counts[1] > counts[2] == 21
    assert 0.04 < counts[0] / (2 ** 31 - 1) < 0.07  # "the": about 5% of English words
    with pytest.raises(InputError, match="^frequencies: wordfreq has no word list for language 'xx'"):
        wordfrequencies.word_counts("wordfreq:xx", ["the"])
