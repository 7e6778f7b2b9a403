"""Files that appear whole or not at all: write under a temporary name, then rename."""

from __future__ import annotations

import json
import os


def write_text(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _plain(x):
    import numpy as np  # not at import time: repro.wikidump must stay free of numpy's threads

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def write_json(path: str, obj, sort_keys: bool = False) -> None:
    """``obj`` as indented JSON (numpy scalars and arrays as plain values)."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=sort_keys, default=_plain) + "\n")
