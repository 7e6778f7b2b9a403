"""Related and unrelated couples of tweets under the paper's four rules (section 4.2).

Related couple, every threshold a field of :class:`PairRules`:

1. each tweet has at least ``min_words`` (5) veritable words (not hashtags, mentions,
   ``url`` or ``0``; :func:`repro.data.tweets.tweetclean.is_veritable`);
2. the Jaccard similarity of the two hashtag sets (forbidden hashtags left out) is at least
   ``min_hashtag_jaccard`` (0.5);
3. the two were sent no more than ``window_s`` (900 s) apart: a sliding window, |t1 - t2| <=
   900 s, as the paper says. ``buckets=True`` is the original code's rule instead: time cut
   into fixed buckets of ``window_s`` aligned to multiples of it (UTC epoch), a couple must
   share a bucket, so two tweets a second apart across a boundary never pair;
4. the Jaccard similarity of the two word sets is below ``max_word_jaccard`` (0.5). The sets
   are the tweets' whole cleaned token lists (hashtags, mentions, ``url`` and ``0``
   included), as the code's lists were. ``multiset_jaccard=True`` is the code's formula
   instead: r = the tokens of tweet 2, with multiplicity, found in tweet 1; r / (n1 + n2 - r).

Unrelated couple: rules 1 and 4 hold and the hashtag Jaccard is 0 (a tweet without hashtags
qualifies; two such tweets too). The paper drops rule 3 for them (the default); the code drew
both tweets from one 15-minute bucket (``unrelated_same_bucket=True``). They are drawn at
random from ``numpy.random.default_rng(seed)``, as many as asked (by default as many as there
are related couples), without repeating a couple.

Every couple is a pair of token lists from which the hashtags the two tweets share (their
hashtag sets' intersection) are removed, in both classes, as the code wrote them; for an
unrelated couple the intersection is empty. Forbidden hashtags are in no set, so they stay.

Related candidates are found through an inverted index from hashtag to tweets in time order:
only tweets sharing a hashtag and inside the window are ever compared (rule 2 at >= 0.5
needs a shared hashtag), never all pairs. Each unordered couple is found once, and a tweet
may take part in several couples, as in the code's ``generate_all_pairs``.

**Duplicates by text.** After cleaning, tweets with identical token lists (one text posted by
many accounts, or twice) are kept once, the earliest; the others are counted in
``duplicate_texts``. **Manual retweets** (texts "RT @user: ...", the agency's own statuses in
the API) are kept by default, as the authors' code kept them (it replaced only native retweets
by their originals); ``drop_manual_retweets=True`` leaves them out (docs/FIDELITY.md).

**Tweet-disjoint splits** (``splits=True``, what the command does). The related couples form a
graph on the tweets; whole connected components go to one split, so no tweet appears in two
splits (:func:`component_splits`): components, largest first (ties in a seeded random order),
each to the split furthest below its share of the related couples in the paper's proportions
15,000 : 20,000 : 13,645 (:func:`paper_split_sizes`); tweets in no related couple are spread
over the splits in the same proportions at random. Unrelated couples are then drawn among each
split's own tweets, as many as it has related ones. Every couple records its two tweet ids and
its split and whether each tweet is a manual retweet (``"manual_rt": [bool, bool]``).

Command line: ``python -m repro tweets --out couples.jsonl [--tweets FILE ...]``;
``--help`` lists the rest.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from bisect import bisect_right
from collections import defaultdict
from typing import NamedTuple, Sequence

import numpy as np

from repro.core.clusters import deal
from repro.errors import InputError, run
from repro.io.store import write_couples, write_json
from repro.data.tweets.tweetclean import CleanTweet, clean_tweet


class PairRules(NamedTuple):
    """The four rules' thresholds and the choices where the paper and the code differ
    (paper's by default)."""

    min_words: int = 5
    min_hashtag_jaccard: float = 0.5
    window_s: float = 900.0
    max_word_jaccard: float = 0.5
    buckets: bool = False                # code: fixed buckets instead of a sliding window
    multiset_jaccard: bool = False       # code: r / (n1 + n2 - r) instead of set Jaccard
    unrelated_same_bucket: bool = False  # code: unrelated couples from one bucket
    keep_mentions: bool = True           # code keeps them; False drops them from the texts
    drop_manual_retweets: bool = False   # code keeps "RT @user: ..." texts; True leaves them out


class Couples(NamedTuple):
    """Token-list couples of each class, and the counts behind them; with splits, one
    ``{"ids": [id_a, id_b], "split": name, "manual_rt": [bool, bool]}`` per couple of each class."""

    related: list
    unrelated: list
    counts: dict
    related_info: list | None = None
    unrelated_info: list | None = None


#: The paper's split sizes (couples of each class): train, validation, test.
PAPER_SPLITS = (("train", 15000), ("validation", 20000), ("test", 13645))


def paper_split_sizes(n: int) -> dict:
    """``n`` couples cut in the paper's proportions 15,000 : 20,000 : 13,645 (largest remainder,
    ties to the earlier split), e.g. 226 -> train 70, validation 93, test 63."""
    if n < 0:
        raise ValueError(f"a number of couples cannot be negative: {n}")
    total = sum(size for _, size in PAPER_SPLITS)
    exact = [n * size / total for _, size in PAPER_SPLITS]
    sizes = [math.floor(x) for x in exact]
    order = sorted(range(len(sizes)), key=lambda k: (-(exact[k] - sizes[k]), k))
    for k in order[: n - sum(sizes)]:
        sizes[k] += 1
    return {name: s for (name, _), s in zip(PAPER_SPLITS, sizes)}


def hashtag_jaccard(a: frozenset, b: frozenset) -> float:
    """|A n B| / |A u B|; 0 when both are empty."""
    inter = len(a & b)
    union = len(a) + len(b) - inter
    return inter / union if union else 0.0


def word_jaccard(t1: Sequence[str], t2: Sequence[str], multiset: bool = False) -> float:
    """Set Jaccard of the two token lists, or with ``multiset`` the code's r / (n1 + n2 - r)."""
    if multiset:
        first = set(t1)
        r = sum(tok in first for tok in t2)
        denom = len(t1) + len(t2) - r
    else:
        s1, s2 = set(t1), set(t2)
        r = len(s1 & s2)
        denom = len(s1) + len(s2) - r
    return r / denom if denom > 0 else 0.0


def strip_shared(a: CleanTweet, b: CleanTweet) -> tuple[list[str], list[str]]:
    """The two token lists without the hashtags of both sets (the code's output step)."""
    shared = a.hashtags & b.hashtags
    return [t for t in a.tokens if t not in shared], [t for t in b.tokens if t not in shared]


def _bucket(t: float, rules: PairRules) -> int:
    return math.floor(t / rules.window_s)


def _together(ta: float, tb: float, rules: PairRules) -> bool:
    if rules.buckets:
        return _bucket(ta, rules) == _bucket(tb, rules)
    return abs(tb - ta) <= rules.window_s


def _check(rules: PairRules) -> None:
    if not rules.min_hashtag_jaccard > 0:
        raise ValueError("min_hashtag_jaccard must be above 0: related couples are found "
                         "through shared hashtags")
    if not rules.window_s > 0:
        raise ValueError(f"window_s must be positive, not {rules.window_s}")


def related_couples(tweets: Sequence[CleanTweet], rules: PairRules = PairRules()) -> list[tuple[int, int]]:
    """Index couples (i, j), i < j in time order, meeting rules 1-4. ``tweets`` sorted by time."""
    _check(rules)
    eligible = [k for k, t in enumerate(tweets) if t.words >= rules.min_words and t.hashtags]
    index: dict[str, list[int]] = defaultdict(list)  # hashtag -> tweet indices, time order
    for k in eligible:
        for h in tweets[k].hashtags:
            index[h].append(k)
    out = []
    for i in eligible:
        a = tweets[i]
        candidates = set()
        for h in a.hashtags:
            lst = index[h]
            for pos in range(bisect_right(lst, i), len(lst)):
                j = lst[pos]
                if not _together(a.time, tweets[j].time, rules):
                    break  # later tweets are further away (or in a later bucket)
                candidates.add(j)
        for j in sorted(candidates):
            b = tweets[j]
            if (hashtag_jaccard(a.hashtags, b.hashtags) >= rules.min_hashtag_jaccard
                    and word_jaccard(a.tokens, b.tokens, rules.multiset_jaccard) < rules.max_word_jaccard):
                out.append((i, j))
    return out


def unrelated_couples(tweets: Sequence[CleanTweet], n: int, rules: PairRules = PairRules(),
                      seed: int = 0, max_draws: int | None = None) -> tuple[list[tuple[int, int]], int]:
    """Up to ``n`` distinct random index couples meeting the unrelated rules; and the draws made.

    Both tweets are drawn uniformly among those with enough words (with
    ``unrelated_same_bucket``, the second from the first one's bucket); a draw that fails a
    rule or repeats a couple is rejected. Stops after ``max_draws`` (default 100 n + 10,000)."""
    _check(rules)
    rng = np.random.default_rng(seed)
    pool = np.array([k for k, t in enumerate(tweets) if t.words >= rules.min_words], dtype=np.int64)
    if n <= 0 or len(pool) < 2:
        return [], 0
    max_draws = 100 * n + 10_000 if max_draws is None else max_draws
    groups = None
    if rules.unrelated_same_bucket:
        by_bucket: dict[int, list[int]] = defaultdict(list)
        for k in pool:
            by_bucket[_bucket(tweets[k].time, rules)].append(int(k))
        groups = {k: members for members in by_bucket.values() if len(members) > 1 for k in members}
        pool = np.array(sorted(groups), dtype=np.int64)
        if len(pool) < 2:
            return [], 0
    chosen: list[tuple[int, int]] = []
    seen = set()
    draws = 0
    while len(chosen) < n and draws < max_draws:
        batch = min(4096, max_draws - draws)
        first = pool[rng.integers(0, len(pool), size=batch)]
        if groups is None:
            second = pool[rng.integers(0, len(pool), size=batch)]
        else:
            second = [groups[int(i)][int(u * len(groups[int(i)]))] for i, u in zip(first, rng.random(batch))]
        for i, j in zip(first.tolist(), second if groups is not None else second.tolist()):
            draws += 1
            key = (min(i, j), max(i, j))
            if i == j or key in seen:
                continue
            a, b = tweets[i], tweets[j]
            if a.hashtags & b.hashtags:
                continue
            if word_jaccard(a.tokens, b.tokens, rules.multiset_jaccard) >= rules.max_word_jaccard:
                continue
            seen.add(key)
            chosen.append((i, j))
            if len(chosen) == n:
                break
    return chosen, draws


def is_manual_retweet(tokens: Sequence[str]) -> bool:
    """A text of the form "RT @user: ..." (cleaned: ``rt``, then a mention)."""
    return len(tokens) > 1 and tokens[0] == "rt" and tokens[1].startswith("@")


def components(n: int, edges: Sequence[tuple[int, int]]) -> np.ndarray:
    """(n,) connected-component label of every node of the graph ``edges`` (union-find);
    labels are the smallest node of each component."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in edges:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    return np.fromiter((root(x) for x in range(n)), np.int64, n)


SPLIT_NAMES = tuple(name for name, _ in PAPER_SPLITS)


def component_splits(n: int, related: Sequence[tuple[int, int]], seed: int = 0) -> tuple[np.ndarray, dict]:
    """The split (0 train, 1 validation, 2 test) of each of ``n`` tweets, whole components of
    the related-couple graph together; and counts (couples per split, the largest component).

    Components, largest first and ties in an order drawn from ``seed``, each go to the split
    furthest below its share of the related couples (the paper's proportions: :func:`repro.core.clusters.deal`,
    rule ``greedy``); tweets in no related couple go to a split drawn in the same proportions."""
    rng = np.random.default_rng(seed)
    comp = components(n, related)
    per_comp = np.bincount(comp[[i for i, _ in related]], minlength=n) if related else np.zeros(n, np.int64)
    targets = [paper_split_sizes(len(related))[k] for k in SPLIT_NAMES]
    roots = np.flatnonzero(per_comp)
    bucket, order = deal(per_comp[roots], targets, rng, "greedy")  # ties to the earlier split
    split_of_root = dict(zip(roots.tolist(), bucket.tolist()))
    fill = np.bincount(bucket, weights=per_comp[roots], minlength=3)
    roots = roots[order]  # largest first
    shares = np.array([size for _, size in PAPER_SPLITS], np.float64)
    loose = rng.choice(3, size=n, p=shares / shares.sum())
    split = np.array([split_of_root.get(int(c), int(loose[t])) for t, c in enumerate(comp)], np.int8)
    sizes = np.bincount(comp, minlength=n)
    big = int(roots[0]) if roots.size else -1
    info = {"related": {name: int(fill[k]) for k, name in enumerate(SPLIT_NAMES)},
            "tweets": {name: int((split == k).sum()) for k, name in enumerate(SPLIT_NAMES)},
            "components_with_couples": int(roots.size),
            "largest_component": {"couples": int(per_comp[big]) if big >= 0 else 0,
                                  "tweets": int(sizes[big]) if big >= 0 else 0}}
    return split, info


def _tweet_id(t: CleanTweet, k: int) -> str:
    return t.id if t.id is not None else f"{t.author}/{t.time:.0f}/{k}"


def make_couples(tweets: Sequence, rules: PairRules = PairRules(), n_unrelated: int | None = None,
                 seed: int = 0, splits: bool = False) -> Couples:
    """Clean ``tweets`` (:class:`repro.data.tweets.records.Tweet`), keep one tweet per token list (and,
    with ``rules.drop_manual_retweets``, no manual retweet), find every related couple and draw
    ``n_unrelated`` unrelated ones (default: as many as related). With ``splits``, the couples
    are cut into tweet-disjoint splits (:func:`component_splits`) and the unrelated ones drawn
    within each split, as many as its related ones. Counts: ``tweets``, ``manual_retweets``,
    ``duplicate_texts``, ``with_enough_words``, ``with_hashtags`` (and enough words: related
    candidates), ``related``, ``tweets_in_related``, ``unrelated``, ``unrelated_asked``,
    ``unrelated_draws``; with splits also ``splits`` and ``tweets_shared_across_splits``."""
    cleaned = sorted((clean_tweet(t, rules.keep_mentions) for t in tweets),
                     key=lambda c: (c.time, c.author, c.tokens))
    n_read = len(cleaned)
    manual = sum(is_manual_retweet(c.tokens) for c in cleaned)
    if rules.drop_manual_retweets:
        cleaned = [c for c in cleaned if not is_manual_retweet(c.tokens)]
    seen_texts: set = set()
    unique = []
    for c in cleaned:
        key = tuple(c.tokens)
        if key not in seen_texts:
            seen_texts.add(key)
            unique.append(c)
    duplicates, cleaned = len(cleaned) - len(unique), unique
    rel = related_couples(cleaned, rules)
    counts = dict(tweets=n_read, manual_retweets=manual, manual_retweets_dropped=manual if rules.drop_manual_retweets else 0,
                  duplicate_texts=duplicates,
                  with_enough_words=sum(c.words >= rules.min_words for c in cleaned),
                  with_hashtags=sum(c.words >= rules.min_words and bool(c.hashtags) for c in cleaned),
                  related=len(rel), tweets_in_related=len({k for pair in rel for k in pair}))
    if not splits:
        n_un = len(rel) if n_unrelated is None else n_unrelated
        unrel, draws = unrelated_couples(cleaned, n_un, rules, seed)
        counts.update(unrelated=len(unrel), unrelated_asked=n_un, unrelated_draws=draws)
        return Couples([strip_shared(cleaned[i], cleaned[j]) for i, j in rel],
                       [strip_shared(cleaned[i], cleaned[j]) for i, j in unrel], counts)
    split, info = component_splits(len(cleaned), rel, seed)
    rel_split = [int(split[i]) for i, _ in rel]
    unrel, unrel_split, draws, asked = [], [], 0, 0
    for k in range(len(SPLIT_NAMES)):
        members = np.flatnonzero(split == k)
        want = sum(x == k for x in rel_split)
        if n_unrelated is not None:  # a total asked for: spread in the related couples' proportions
            want = round(n_unrelated * want / max(len(rel), 1))
        pairs, d = unrelated_couples([cleaned[m] for m in members], want, rules, seed + 1000 * (k + 1))
        unrel += [(int(members[i]), int(members[j])) for i, j in pairs]
        unrel_split += [k] * len(pairs)
        draws, asked = draws + d, asked + want
    ids = [_tweet_id(c, k) for k, c in enumerate(cleaned)]
    rt = [is_manual_retweet(c.tokens) for c in cleaned]

    def records(pairs, where):
        return [{"ids": [ids[i], ids[j]], "split": SPLIT_NAMES[k], "manual_rt": [rt[i], rt[j]]}
                for (i, j), k in zip(pairs, where)]

    rel_info, unrel_info = records(rel, rel_split), records(unrel, unrel_split)
    counts.update(unrelated=len(unrel), unrelated_asked=asked, unrelated_draws=draws, splits=info,
                  tweets_shared_across_splits=shared_across_splits(rel_info + unrel_info))
    return Couples([strip_shared(cleaned[i], cleaned[j]) for i, j in rel],
                   [strip_shared(cleaned[i], cleaned[j]) for i, j in unrel], counts, rel_info, unrel_info)


def shared_across_splits(info: Sequence[dict]) -> int:
    """Tweets that appear in couples of more than one split (0 for tweet-disjoint splits)."""
    where: dict[str, set] = defaultdict(set)
    for x in info:
        for tid in x["ids"]:
            where[tid].add(x["split"])
    return sum(len(v) > 1 for v in where.values())


def tweet_couples(paths: Sequence[str], rules: PairRules = PairRules(), accounts=None,
                  n_unrelated: int | None = None, seed: int = 0, require_tweets: bool = True,
                  warn=None, splits: bool = True) -> Couples:
    """Files to couples in one call: :func:`repro.data.tweets.records.read_tweets`, then
    :func:`make_couples`. The counts gain ``tweets_read`` (records), ``tweets_kept`` and
    ``reading`` (all of the reader's counts). Raises :class:`repro.errors.InputError` for bad files
    and ``ValueError`` for impossible rules; finding no couple is not an error here."""
    from repro.data.tweets.records import read_tweets

    coll = read_tweets(paths, accounts, warn=warn, require_tweets=require_tweets)
    out = make_couples(coll.tweets, rules, n_unrelated, seed, splits)
    counts = dict(tweets_read=coll.counts["records"], tweets_kept=coll.counts["kept"], **out.counts,
                  reading=coll.counts)
    return out._replace(counts=counts)


# ---- command line ---------------------------------------------------------------------------
def _name_of(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more files)"


def _by_source(kept_by_file: dict, cache: str | None) -> dict:
    """Tweets kept per source: the cache's subfolder of each default source (the package it came
    from), or each file's name."""
    out: dict = {}
    for path, n in kept_by_file.items():
        rel = os.path.relpath(path, cache) if cache else os.path.basename(path)
        name = rel.split(os.sep)[0] if cache else rel
        out[name] = out.get(name, 0) + n
    return out


def _parser() -> argparse.ArgumentParser:
    d = PairRules()
    p = argparse.ArgumentParser(prog="python -m repro tweets",
                                description="Tweets to related and unrelated couples (paper, section 4.2).")
    p.add_argument("--tweets", nargs="+", metavar="FILE",
                   help="tweet collections (JSON lines, JSON, cassettes, .tab/.tsv; .gz allowed); "
                        "default: the embedded real sources fetched into --cache")
    p.add_argument("--cache", default=os.path.join("data", "tweet-sources"),
                   help="where the default sources are downloaded (default: %(default)s)")
    p.add_argument("--out", required=True, help="couples file: .jsonl (token lists, what tweetsets reads), or .tsv (label<TAB>a<TAB>b, to read by eye)")
    p.add_argument("--summary", help="JSON summary of counts (default: OUT without suffix + .summary.json)")
    p.add_argument("--accounts", help="file of screen names to keep, one a line")
    p.add_argument("--window-min", type=float, default=d.window_s / 60, help="rule 3, minutes (%(default)s)")
    p.add_argument("--min-words", type=int, default=d.min_words, help="rule 1 (%(default)s)")
    p.add_argument("--min-hashtag-jaccard", type=float, default=d.min_hashtag_jaccard, help="rule 2 (%(default)s)")
    p.add_argument("--max-word-jaccard", type=float, default=d.max_word_jaccard, help="rule 4 (%(default)s)")
    p.add_argument("--buckets", action="store_true", help="code: fixed time buckets, not a sliding window")
    p.add_argument("--multiset", action="store_true", help="code: multiset approximation of word Jaccard")
    p.add_argument("--unrelated-same-bucket", action="store_true", help="code: unrelated couples from one bucket")
    p.add_argument("--drop-mentions", action="store_true", help="remove @mentions from the texts")
    p.add_argument("--drop-manual-retweets", action="store_true",
                   help="leave out texts \"RT @user: ...\" (default: kept, as the authors' code did)")
    p.add_argument("--n-unrelated", type=int, help="unrelated couples to draw (default: as many as related)")
    p.add_argument("--seed", type=int, default=0)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from repro.data.tweets.records import read_accounts

    out = args.out
    fmt = "tsv" if out.lower().endswith((".tsv", ".tab", ".txt")) else "jsonl"
    summary_path = args.summary or os.path.splitext(out)[0] + ".summary.json"
    notes: list[str] = []
    if args.tweets:
        paths, require = list(args.tweets), True
    else:
        from repro.data.tweets.tweetsources import fetch_default_sources

        paths, notes = fetch_default_sources(args.cache)
        require = False  # the fixture folder also holds recordings of non-tweet requests
        if not paths:
            raise InputError(args.cache, "no default tweet source could be fetched: " + "; ".join(notes))
    accounts = read_accounts(args.accounts) if args.accounts else None
    rules = PairRules(min_words=args.min_words, min_hashtag_jaccard=args.min_hashtag_jaccard,
                      window_s=args.window_min * 60, max_word_jaccard=args.max_word_jaccard,
                      buckets=args.buckets, multiset_jaccard=args.multiset,
                      unrelated_same_bucket=args.unrelated_same_bucket,
                      keep_mentions=not args.drop_mentions, drop_manual_retweets=args.drop_manual_retweets)
    try:
        couples = tweet_couples(paths, rules, accounts, args.n_unrelated, args.seed, require,
                                warn=lambda m: print(f"note: {m}", file=sys.stderr))
    except InputError:
        raise
    except ValueError as e:
        raise InputError("settings", str(e)) from None
    reading = couples.counts["reading"]
    reading["kept_by_source"] = _by_source(reading.get("kept_by_file") or {}, args.cache if not args.tweets else None)
    where = args.cache if not args.tweets else _name_of(paths)
    if not couples.related:
        raise InputError(where, f"no related couples under the rules ({reading['kept']} tweets kept, "
                                f"{couples.counts['with_hashtags']} with hashtags and enough words)")
    if not couples.unrelated:
        raise InputError(where, "no unrelated couples could be drawn")
    summary = dict(sources=paths, notes=notes, rules=rules._asdict(), seed=args.seed,
                   reading=reading, pairing={k: v for k, v in couples.counts.items() if k != "reading"},
                   couples_file=out, format=fmt)
    write_couples(out, couples.related, couples.unrelated, fmt, (couples.related_info, couples.unrelated_info))
    write_json(summary_path, summary)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    c = couples.counts
    split = c.get("splits") or {}
    print(f"{reading['records']} tweets read, {reading['kept']} kept, {c['duplicate_texts']} duplicate texts dropped, "
          f"{c['with_enough_words']} with >= {rules.min_words} words; {c['related']} related and {c['unrelated']} "
          f"unrelated couples" + (f" in tweet-disjoint splits (related: {split['related']}; largest component "
                                  f"{split['largest_component']['couples']} couples)" if split else "") + f" -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
