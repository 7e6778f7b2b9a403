"""Text by the paper's rules, and texts as the padded, idf-sorted token rows the model reads.

**The text rules** (paper, section 4.1; the original code's cleaner), shared by the Wikipedia
stage (:mod:`repro.data.wikipedia.wikitext`), the tweet stage (:mod:`repro.data.tweets.tweetclean`) and the
encoder: :func:`clean` lower-cases, turns numbers into ``0`` (:func:`replace_numbers`, the
code's :data:`NUMBER_RE`: optional sign, ``[digits,]*``, ``\\.*``, digits become the single
character ``0``), turns every character outside ``[a-z0-9_]`` into a space (so, as in the
Python 2 byte-string original, a non-ASCII character splits a word) and collapses whitespace;
:func:`tokenise` splits the result.

**The Unicode rule** (not the paper's; ``tokeniser="unicode"`` of the encoder and the commands):
:func:`tokenise_unicode` lower-cases and keeps words of letters and digits of any script
(``Zürich`` -> ``zürich``, ``Café`` -> ``café``), numbers as word vectors such as GloVe spell
them (``3.12``, ``1,234``) and hyphenated words whole (``COVID-19`` -> ``covid-19``). The
paper's rule stays the default because the tables and the shipped weights were made with it;
:func:`drops_letters` says when it would drop letters from a raw string.

**A string or a token list.** Every boundary that takes texts takes either kind: a raw string
is split by a tokeniser (the paper's rule by default), a list or tuple of tokens is taken as it
is. :func:`tokens` and :func:`token_lists` decide which, here and nowhere else.

**Token rows.** A text is represented by the word indices of its in-vocabulary words sorted by
descending idf (paper, section 3.1), ties broken by the word string ascending (the original
code sorts (df, word) tuples), padded on the right with 0 to a common width:
:func:`pack_texts` for a flat array of texts at once, given every word's idf rank
(:class:`repro.words.vocabulary.Vocabulary` holds it, and turns texts into rows and couples).

numpy is imported inside the functions: the Wikipedia extractor uses this module and must not
start numpy's threads before it forks its workers (:func:`repro.data.parallel.mp_context`).
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import numpy as np

#: The original code's number rule, on ASCII digits only (Python 2 byte-string ``\d``).
NUMBER_RE = re.compile(r"[+-]?[0-9,]*\.*[0-9]+")

# Every match of NUMBER_RE lies inside a maximal run of [-+0-9,.] characters that holds a
# digit; such a run is found fast from its first digit and then extended to the left.
_DIGIT_RUN = re.compile(r"[0-9][-+0-9,.]*")
_NON_WORD = re.compile(r"[^a-z0-9_]+")


def replace_numbers(text: str) -> str:
    """Apply the original code's number rule: "1,234.5" -> "0", "1990s" -> "0s", "h2o" -> "h0o"."""
    out, pos = [], 0
    for m in _DIGIT_RUN.finditer(text):
        start = m.start()
        while start > pos and text[start - 1] in "-+,.":
            start -= 1
        out.append(text[pos:start])
        out.append(NUMBER_RE.sub("0", text[start : m.end()]))
        pos = m.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def clean(text: str) -> str:
    """Lower case, numbers to ``0``, characters outside ``[a-z0-9_]`` to spaces, whitespace collapsed.

    Non-ASCII characters become spaces before lower-casing, which is what the original
    Python 2 code did to bytes (and keeps, say, the Kelvin sign from turning into a ``k``).
    """
    text = text.encode("ascii", "replace").decode("ascii").lower()  # non-ASCII -> '?' -> space
    text = replace_numbers(text)
    return " ".join(_NON_WORD.sub(" ", text).split())


def tokenise(text: str) -> list[str]:
    """A raw text cleaned by the paper's rules (:func:`clean`) and split on spaces."""
    return clean(text).split()


#: A word of the Unicode rule: letters, digits or _ of any script, joined by hyphens, then
#: decimals and thousands (``3.12``, ``1,234.5``).
_UNICODE_WORD = re.compile(r"\w+(?:-\w+)*(?:[.,]\d+)*")


def tokenise_unicode(text: str) -> list[str]:
    """A raw text, lower-cased, as its words of any script (:data:`_UNICODE_WORD`): "Zürich
    3.12, COVID-19!" -> ``["zürich", "3.12", "covid-19"]``."""
    return _UNICODE_WORD.findall(text.lower())


#: The tokenisers of raw strings, by the name the encoder and the commands take.
TOKENISERS = {"paper": tokenise, "unicode": tokenise_unicode}


def tokeniser(name: str):
    """The tokeniser called ``name`` (:data:`TOKENISERS`); ValueError naming the choices otherwise."""
    if name not in TOKENISERS:
        raise ValueError(f"tokeniser: expected one of {', '.join(TOKENISERS)}, got {name!r}")
    return TOKENISERS[name]


def drops_letters(text: str) -> bool:
    """Whether the paper's rule drops letters from ``text``: it holds a letter outside ASCII."""
    return not text.isascii() and any(ch.isalpha() and not ch.isascii() for ch in text)


def tokens(text, tokenise=tokenise, name: str = "text"):
    """One text as its tokens: a raw string split by ``tokenise`` (default: the paper's rule),
    a list or tuple of tokens as it is; anything else is a ValueError naming ``name``."""
    if isinstance(text, str):
        return tokenise(text)
    if isinstance(text, (list, tuple)) and (not text or isinstance(text[0], str)):
        return text  # the tokens past the first are not checked: a non-string is simply unknown
    raise ValueError(f"{name}: expected a string or a list of string tokens, got {type(text).__name__}")


def token_lists(texts, tokenise=tokenise, name: str = "texts", dropped: list | None = None) -> list:
    """Texts (raw strings or token lists, :func:`tokens`) as a list of token lists. A list of
    lists is returned as it is (the common case: one pass, no copy).

    ``dropped``: a list to which the index of every raw string holding letters outside a-z
    (:func:`drops_letters`, which the paper's rule drops) is appended, in the same pass."""
    if isinstance(texts, list) and (not texts or set(map(type, texts)) == {list}):  # 5x the speed of all(...)
        return texts
    if dropped is not None:
        dropped.extend(i for i, t in enumerate(texts) if isinstance(t, str) and drops_letters(t))
    return [tokens(t, tokenise, f"{name}[{i}]") for i, t in enumerate(texts)]


def pack_texts(flat: "np.ndarray", lengths: "np.ndarray", rank: "np.ndarray", width: int) -> "np.ndarray":
    """Every text sorted by descending idf and 0-padded: a (number of texts, width) int32 array.

    ``flat`` holds the texts' word indices one text after the other, ``lengths`` their lengths,
    ``rank`` every word's idf rank (:func:`repro.words.vocabulary.idf_order_rank`).
    """
    import numpy as np

    flat = np.asarray(flat, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.size and lengths.max() > width:
        raise ValueError(f"lengths: a text of {int(lengths.max()):,} words exceeds the width {width}")
    text_of = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((rank[flat], text_of))  # text by text, then by idf rank
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    packed = np.zeros((len(lengths), width), dtype=np.int32)
    packed[text_of, np.arange(len(flat)) - offsets[text_of]] = flat[order]
    return packed


def fingerprint(words: Iterable[str]) -> str:
    """SHA-256 of the words in order: weights and rows are only valid for the same list."""
    # one update of the joined bytes: the same digest as one update per word, in a tenth of the time
    return hashlib.sha256("".join(w + "\n" for w in words).encode("utf-8")).hexdigest()


_NOT_PUNCT = re.compile(r".*[A-Za-z0-9].*")


def fse_tokenise(sentence: str) -> list[str]:
    """fse's STS tokens (its notebook's ``prep_sentence``, after Ethayarajh's usif.py; not the
    paper's rule): NLTK's ``word_tokenize``, approximated here by its rules that matter after the
    next steps (punctuation split from words; the contractions n't, 's, 're, 've, 'll, 'd, 'm split
    off), the tokens with a letter or digit kept, each lower-cased, stripped of ``';.:()`` and then
    of the double quote, n't made not, and split on hyphens."""
    text = re.sub(r"(?i)(\w)(n't)\b", r"\1 \2", sentence)
    text = re.sub(r"(?i)(\w)'(s|re|ve|ll|d|m)\b", r"\1 '\2", text)
    text = re.sub(r"([^\w\s'.\-])", r" \1 ", text)
    out = []
    for token in text.split():
        if not _NOT_PUNCT.match(token):
            continue
        t = token.lower().strip("';.:()").strip('"')
        t = "not" if t == "n't" else t
        out.extend(re.split(r"[-]", t))
    return out
