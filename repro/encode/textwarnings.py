"""What the encoder warns about the texts it reads, and the words of each warning.

:class:`repro.encode.encoder.Encoder` warns when texts have no word with a vector (their vectors are
zero: the out-of-vocabulary rule of the module :mod:`repro.encode.encoder`), when the paper's tokeniser
drops letters of raw texts, and when many encoded words are unseen by the df source (they get
df = 1, the authors' rule, and eq. 1 cannot order them). Each function here returns the
warning's message, "" when there is nothing to say; the encoder decides when to warn.
"""

from __future__ import annotations

import numpy as np


class EmptyTextWarning(UserWarning):
    """Some texts had no word with a vector: their vectors are zero."""


class TokeniserWarning(UserWarning):
    """The paper's rule dropped letters outside a-z from some raw texts (``tokeniser="unicode"`` keeps them)."""


class SparseDfWarning(UserWarning):
    """Many encoded words are not in the df source: they get df = 1 and are ordered by spelling."""


#: The share of encoded words (with a vector) unseen by the df source above which the encoder
#: warns, once (encoding, scoring or fitting), when at least :data:`DF_MIN_UNSEEN` of them are unseen:
#: a few unseen words in a small example are noise, ten are not.
DF_UNSEEN_SHARE = 0.2
DF_MIN_UNSEEN = 10


def empty_message(*named) -> str:
    """The warning's words for texts without a known word, for each (lengths, name) of ``named``;
    "" when there are none."""
    said = []
    for lengths, name in named:
        empty = np.flatnonzero(lengths == 0)
        if empty.size:
            said.append(f"{empty.size:,} of {lengths.size:,} {name} have no word with a vector (first: "
                        f"{name}[{int(empty[0])}]); their vectors are zero")
    return "; ".join(said)


def dropped_letters_message(texts: list, tokens: list, hits: list, name: str) -> str:
    """The warning's words for the raw ``texts`` (indices ``hits``) whose letters the paper's rule dropped."""
    first = texts[hits[0]]
    shown = first if len(first) <= 40 else first[:37] + "..."
    return (f"{len(hits):,} of {len(texts):,} {name} hold letters outside a-z, which the paper's tokeniser drops "
            f"(first: {name}[{hits[0]}], {shown!r} -> {tokens[hits[0]][:8]}); tokeniser='unicode' "
            "(--tokeniser unicode) keeps them")


def unseen_df_message(tokens: list, chunk: int, lookup, unlisted_rank: np.ndarray, n_docs: int) -> str:
    """The warning's words when many of the first ``chunk`` texts' words with a vector (``lookup``:
    their idf ranks) are unlisted by the df source (``unlisted_rank``, by rank); "" otherwise."""
    sample = tokens[:chunk]
    ranks = lookup.ranks(sample)
    known = ranks[ranks < lookup.sentinel]
    unseen = int(unlisted_rank[known].sum())
    if unseen < DF_MIN_UNSEEN or unseen <= DF_UNSEEN_SHARE * known.size:
        return ""
    return (f"{unseen / known.size:.0%} of the encoded words with a vector ({unseen:,} of {known.size:,}"
            f"{' in the first ' + format(len(sample), ',') + ' texts' if len(sample) < len(tokens) else ''}) "
            f"are not in the df source ({n_docs:,} documents): they get df = 1 and are ordered "
            "by spelling; count df on a larger corpus like these texts (tens of thousands: repro df)")
