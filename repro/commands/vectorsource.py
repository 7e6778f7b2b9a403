"""What ``repro neighbours`` and ``repro dedup`` share: an input that is a file of texts or a
``.npy`` of text vectors, the encoder built only where one is needed, and the metric.

A ``.npy`` (``repro encode``'s output) is memory-mapped, so its rows are read from disk a block
at a time; any other file is texts, one per line or JSON lines (:func:`repro.io.store.read_texts`).
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from repro.io import store
from repro.errors import InputError
from repro.commands.options import add_encoder_options, add_metric_option, encoder_from
from repro.search.neighbours import as_matrix


def parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """The parser of a command on ITEMS (a texts file or a ``.npy``): its ``--format``, ``--metric``
    and encoder options; ``doc``'s first paragraph describes it, the rest is its epilog."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc.split("\n\n", 1)[1])
    ap.add_argument("items", metavar="ITEMS", help="a file of texts (one per line, or JSON lines: .jsonl) or a .npy "
                                                   "of text vectors (repro encode's output); an item's id is its row")
    return ap


def add_common_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--format", default="auto", choices=("auto", "lines", "jsonl"),
                    help="how to read a file of texts (auto: JSON lines when it ends in .jsonl)")
    add_metric_option(ap)
    add_encoder_options(ap)


def read_items(path: str, fmt: str = "auto"):
    """A ``.npy``'s (n, d) array (memory-mapped), or the texts of any other file."""
    if path.endswith(".npy"):
        return as_matrix(store.load_array(path, mmap=True), path)
    return store.read_texts(path, fmt)


def encoder_for(args, *inputs):
    """The encoder the options name, built when an input is texts or an encoder is named; else None."""
    if args.model or args.vectors or any(not isinstance(x, np.ndarray) for x in inputs):
        return encoder_from(args)
    return None


def metric_of(args, enc) -> str:
    """``--metric``, else the encoder's; ``--metric`` is needed when there is no encoder."""
    if args.metric:
        return args.metric
    if enc is None:
        raise InputError("--metric", "required when every input is a .npy of vectors and no encoder is named "
                                     "(--model or --vectors): cosine or euclidean")
    return enc.metric


def check_dims(inputs: dict, enc) -> None:
    """Every array of ``inputs`` (name -> texts or array) as wide as the encoder's vectors, or
    as the first array: InputError naming the file otherwise."""
    arrays = [(name, x) for name, x in inputs.items() if isinstance(x, np.ndarray)]
    if enc is not None:
        want, whose = enc.dim, "the encoder's"
    elif arrays:
        want, whose = arrays[0][1].shape[1], f"those of {arrays[0][0]}"
    for name, x in arrays:
        if x.shape[1] != want:
            raise InputError(name, f"{x.shape[1]}-d vectors, but {whose} are {want}-d")


def is_index(path: str) -> bool:
    """Whether ``path`` is an index folder of ``repro index`` (a folder holding its manifest)."""
    from repro.search.indexfolder import MANIFEST
    return os.path.isdir(path) and os.path.exists(os.path.join(path, MANIFEST))


def names_encoder(args) -> bool:
    """Whether the options name an encoder (rather than leaving it to the index folder)."""
    return bool(args.model or args.vectors or args.df or args.corpus or getattr(args, "pretrained", "default") != "default")


def index_encoder(args, index):
    """The encoder of an index folder: the one the options name, refused unless it is the one the
    folder was built with; else the one it holds (``encoder.npz``); None for a folder of vectors
    built without one."""
    if names_encoder(args):
        enc = encoder_from(args)
        if index.encoder is not None and enc.identity != index.encoder:
            raise InputError(index.folder, "was built by another encoder than the one the options name (leave "
                                           "them out to use the index's own)")
        return enc
    from repro.search.indexfolder import ENCODER
    held = index.path(ENCODER)
    if os.path.exists(held):
        from repro.encode.encoder import Encoder
        return Encoder.load(held)
    return None
