"""What the encoder subcommands share: building an Encoder from options, reading texts and couples.

Files of texts hold one text per line, or JSON lines (``.jsonl``; each line a string, a list
of tokens, or an object with a ``"text"`` field). Files of couples are tab-separated
``text_a<TAB>text_b[<TAB>label]`` lines, or JSON lines with ``"a"``, ``"b"`` and ``"label"``
(1 related, 0 unrelated). Bad input raises :class:`repro.cli.InputError` naming the file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from repro.cli import InputError


def add_encoder_options(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("encoder (a saved --model, or the shipped weights on --vectors and --df/--corpus)")
    g.add_argument("--model", help="an encoder saved by `repro train` or Encoder.save (.npz)")
    g.add_argument("--vectors", help="word vectors: word2vec .bin, word2vec or GloVe text, or a vectors.npy folder")
    g.add_argument("--df", help="document frequencies with their words (.npz, repro.store.save_word_df)")
    g.add_argument("--corpus", help="texts to count document frequencies in (one document per line, or .jsonl)")
    g.add_argument("--lowercase", action="store_true", help="fold the vector words' case (case-sensitive models)")
    g.add_argument("--no-normalize", action="store_true", help="keep the vectors' lengths (default: unit length)")


def _exists(path: str) -> str:
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    return path


def encoder_from(args, *, weights: bool = True, n_max: int = 30):
    """The Encoder the options name: ``--model`` (its vectors from ``--vectors`` or as saved), or
    ``--vectors`` with ``--df``/``--corpus`` and the shipped weights (or none, ``weights=False``)."""
    from repro.encoder import Encoder

    if weights and args.model:
        return Encoder.load(_exists(args.model), vectors=args.vectors and _exists(args.vectors), progress=True)
    if not args.vectors:
        raise InputError("--vectors", "required (word vectors to encode with)" + ("" if not weights else " unless --model is given"))
    if bool(args.df) == bool(args.corpus):
        raise InputError("--df/--corpus", "give exactly one: a df file, or a corpus to count document frequencies in")
    corpus = read_texts(args.corpus) if args.corpus else None
    options = dict(corpus=corpus, normalize=not args.no_normalize, lowercase=args.lowercase, progress=True)
    df = _exists(args.df) if args.df else None
    if weights:
        return Encoder.pretrained(_exists(args.vectors), df, **options)
    return Encoder(_exists(args.vectors), df, n_max=n_max, **options)


def _json_text(value, path: str, line: int):
    if isinstance(value, dict):
        value = value.get("text")
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(t, str) for t in value)):
        return value
    raise InputError(path, f"line {line}: expected a string, a list of tokens or an object with \"text\"")


def _lines(path: str) -> list[str]:
    _exists(path)
    if os.path.isdir(path):
        raise InputError(path, "is a directory")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text ({err.reason})") from None


def _is_jsonl(path: str, fmt: str) -> bool:
    return fmt == "jsonl" or (fmt == "auto" and path.endswith((".jsonl", ".ndjson")))


def _json(line: str, path: str, i: int):
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(path, f"line {i}: not JSON ({err.msg})") from None


def read_texts(path: str, fmt: str = "auto") -> list:
    """The texts of a file: one per line, or JSON lines (``fmt`` "lines", "jsonl" or "auto" by extension)."""
    lines = _lines(path)
    if _is_jsonl(path, fmt):
        texts = [_json_text(_json(s, path, i), path, i) for i, s in enumerate(lines, 1) if s.strip()]
    else:
        texts = lines
    if not texts:
        raise InputError(path, "no texts (empty input)")
    return texts


def read_couples(path: str, labels: bool) -> tuple[list, np.ndarray | None]:
    """((text_a, text_b) list, labels or None) of a couples file; ``labels=True`` requires them."""
    lines = _lines(path)
    couples, ys = [], []
    jsonl = _is_jsonl(path, "auto")
    for i, s in enumerate(lines, 1):
        if not s.strip():
            continue
        if jsonl:
            obj = _json(s, path, i)
            if not isinstance(obj, dict) or "a" not in obj or "b" not in obj:
                raise InputError(path, f"line {i}: expected an object with \"a\" and \"b\"")
            a, b, y = _json_text(obj["a"], path, i), _json_text(obj["b"], path, i), obj.get("label")
        else:
            parts = s.split("\t")
            if len(parts) not in (2, 3):
                raise InputError(path, f"line {i}: expected text_a<TAB>text_b[<TAB>label], found {len(parts)} fields")
            a, b, y = parts[0], parts[1], parts[2] if len(parts) == 3 else None
        if labels:
            if str(y).strip() not in ("0", "1"):
                raise InputError(path, f"line {i}: label must be 0 (unrelated) or 1 (related), got {y!r}")
            ys.append(int(str(y).strip()))
        couples.append((a, b))
    if not couples:
        raise InputError(path, "no couples (empty input)")
    return couples, (np.asarray(ys, np.int8) if labels else None)


def report_warnings(caught) -> None:
    """Every warning caught during a command as one ``warning: ...`` line on stderr."""
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)

