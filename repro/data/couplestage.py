"""What the mains of the stages after word2vec share: ``python -m repro docfreq``
(:mod:`repro.data.wikipedia.paragraphdf`), ``pairs`` (:mod:`repro.data.wikipedia.wikipairs`) and
``tweetsets`` (:mod:`repro.data.tweets.tweetsets`).

Their input options, one way to read a text input (one error line naming it: no such file, or
not UTF-8), and one way to save a corpus's splits with the line that counts them.
"""

from __future__ import annotations

import argparse
import contextlib
import os

from repro.io import store
from repro.errors import InputError

PARAGRAPHS_HELP = "paragraph TSV of the wikidump stage"


def add_inputs(ap: argparse.ArgumentParser, df: bool = True, corpus: str = "") -> None:
    """``--vocab`` (the word2vec stage's vocab.txt) and, with ``df``, ``--df`` (the docfreq stage's
    df.npz), both required; ``corpus`` names where they come from in the help (" (Wikipedia)")."""
    ap.add_argument("--vocab", required=True, help=f"vocab.txt of the word2vec stage{corpus}")
    if df:
        ap.add_argument("--df", required=True, help=f"df.npz of the docfreq stage{corpus}")


@contextlib.contextmanager
def reading(path: str):
    """Read the text file ``path`` inside: :class:`repro.errors.InputError` naming it when there is
    no such file (checked on entering) or when its bytes are not UTF-8 text."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    try:
        yield
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text ({err.reason})") from None


def save_splits(out: str, splits: dict, summary: dict, groups: dict) -> str:
    """Write the splits, their clusters and ``summary`` to the folder ``out``
    (:func:`repro.io.store.save_splits`); return the counts of ``summary["counts"]`` as the stages
    print them: ``"train 6+6, test 5+5, ..."`` (related + unrelated)."""
    store.save_splits(out, splits, summary, groups=groups)
    return ", ".join(f"{k} {v['related']}+{v['unrelated']}" for k, v in summary["counts"].items())
