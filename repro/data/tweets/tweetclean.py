"""Tweet text to tokens and a hashtag set, as the original code cleaned it (paper, section 4.2).

The paper says only: lower case, numbers to ``0``, non-informative hashtags such as
``#breaking``, ``#update`` and ``#news`` removed. The original code
(``tweets/godin/decompress.py`` and ``tweets/corpus.py``) fills in the rest, and
:func:`clean_tweet` follows it step by step:

1. NFKD normalisation, then every non-ASCII character is dropped (``é`` -> ``e``, an emoji
   vanishes, ``…`` -> ``...``).
2. Line breaks become spaces.
3. Every ``http://`` or ``https://`` link becomes the token ``url``. The code matched
   ``t.co`` links only, which is what every link in a tweet was in 2015; any host is taken
   here so that collections with expanded links clean the same way.
4. HTML entities are decoded (``&amp;`` -> ``&``).
5. Every character outside ``[A-Za-z0-9]``, ASCII whitespace and ``# @ $ £ & '`` becomes a
   space. ``£`` is in the code's set but is non-ASCII, so step 1 has already removed it:
   it can never survive, here as in the code.
6. Numbers become ``0`` with the Wikipedia cleaner's rule (:func:`repro.words.text.replace_numbers`).
   Punctuation is already gone, so ``1,234.5`` is three numbers by now: ``0 0 0``.
7. Lower case.
8. Split on whitespace. A token starting with ``#`` is cut on ``#`` into hashtags, each kept
   in the text *and* in the hashtag list: ``#a#b`` -> ``#a #b``. As in the code an empty piece
   gives the hashtag ``#`` (``##a`` -> ``# #a``); ``#`` is one of the 83 forbidden hashtags.
   A lone ``'`` is dropped. Mentions stay in the text (``keep_mentions=False`` drops them,
   an option: the paper's rule 1 does not count them as words, but says nothing about
   removing them).
9. The hashtag *set* leaves out :data:`FORBIDDEN_HASHTAGS`, the code's 83 non-informative
   hashtags (``corpus.py``); they stay in the text as tokens.

Veritable words (paper rule 1, code ``corpus_pairs.py``) are the tokens that do not start
with ``#`` or ``@`` and are not ``0`` or ``url``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import NamedTuple

from repro.words.text import replace_numbers

#: The original code's 83 non-informative hashtags (``tweets/corpus.py``), already in cleaned
#: form (numbers are ``0``). ``#go0mb`` would be what ``#go2mb`` cleans to; the code's list
#: held ``#go2mb`` itself, which cleaned text can never contain, so it is kept as the code had it.
FORBIDDEN_HASHTAGS = frozenset("""
#0 #breaking #update #tweet #topstories # #photos #news #potusplaylist #yoursay #viralvideos
#longreads #c0news #ssnalerts #sayfie #flapol #aljazeera #lbcblogs #video #breakingnews
#bbcgofigure #npreads #nbc0ny #abcnews0 #0abc #nbc0today #nyccw0 #cbs0 #developing
#theinsider #bbc #tomorrowspaperstoday #cnnfc #buffalo #twcnews #nbc0 #cny #nbc0dc
#asktheglobe #cambridge #cambridgeshire #a0 #fortuneinsider #fortunelive #fortunetech
#foxnews #global0 #medhat #expressfrontage #expressopinion #india #beyondthenews #sundayeye
#freetimeoutny #wordonthestreet #aljazeeramag #aljazeerzworld #jpost #foxinthefastlane
#guardiangothenburg #bbcafricalive #bbcfocusafrica #proverb #africa #bbcbreakfast
#huffpostnow #washweek #onthisday #philly #local #periscope #glasto0 #exploreny #budget0
#icymi #obama #lateline #tca0 #washweeklive #myrtlebeach #surfsidebeach #mugshots #go2mb
""".split())
assert len(FORBIDDEN_HASHTAGS) == 83

_URL = re.compile(r"https?://\S*", re.IGNORECASE)
_OUTSIDE = re.compile(r"[^A-Za-z0-9\s#@$&']", re.ASCII)  # '£' would be here too: see step 5


class CleanTweet(NamedTuple):
    """A cleaned tweet: ``tokens`` (the text), ``hashtags`` (the set used by the rules,
    without the forbidden ones), ``words`` (the number of veritable words) and the record's
    ``time``, ``author`` and ``id``."""

    tokens: list[str]
    hashtags: frozenset
    words: int
    time: float
    author: str
    id: str | None


def is_veritable(token: str) -> bool:
    """A word for rule 1: not a hashtag, not a mention, not ``0``, not ``url``."""
    return not token.startswith(("#", "@")) and token not in ("0", "url")


def clean_text(text: str, keep_mentions: bool = True) -> list[str]:
    """Steps 1-8 of the module docstring: the token list of one raw tweet text."""
    s = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    s = s.replace("\r", " ").replace("\n", " ")
    s = _URL.sub(" url ", s)
    s = html.unescape(s)
    s = _OUTSIDE.sub(" ", s)
    s = replace_numbers(s).lower()
    tokens = []
    for tok in s.split():
        if tok.startswith("#"):
            tokens.extend("#" + piece for piece in tok.split("#")[1:])
        elif tok == "'" or (tok.startswith("@") and not keep_mentions):
            continue
        else:
            tokens.append(tok)
    return tokens


def hashtag_set(tokens: list[str]) -> frozenset:
    """The hashtags among ``tokens`` less :data:`FORBIDDEN_HASHTAGS` (step 9)."""
    return frozenset(t for t in tokens if t.startswith("#") and t not in FORBIDDEN_HASHTAGS)


def clean_tweet(tweet, keep_mentions: bool = True) -> CleanTweet:
    """A :class:`repro.data.tweets.records.Tweet` (anything with ``text``, ``time``, ``author``, ``id``)
    cleaned. The hashtag set comes from the text, as in the code, not from the API's entities."""
    tokens = clean_text(tweet.text, keep_mentions)
    return CleanTweet(tokens, hashtag_set(tokens), sum(map(is_veritable, tokens)),
                      tweet.time, tweet.author, tweet.id)
