"""The WordLlama rows of Tables 1 and 2 (issue 34 item 3; not in the paper): where their files live,
the token space a stage reads, and how the tables take the rows in.

Three stages make them (the Makefile's ``tokens-df``, ``tokenfamily-<setting>`` and
``tokenscores-<setting>``): :mod:`experiments.token_df` counts df and token counts over the
corpus's paragraphs, :mod:`experiments.train_tokenfamily` fits the learned family's members on the
token space (:mod:`repro.evaluate.tokentables`), :mod:`experiments.score_tokens` scores the row "WordLlama",
the members and the peer family's token configurations on the validation and test couples. The
tables then read a column's score file and its source's token score file as one (:func:`load_scores`),
and :func:`merge` puts the token members among the learned family's candidates and the token
configurations among the peer family's, each family's row chosen again on the validation couples
by the same rule (ties to the word space's candidates, which come first).

The column ``other`` (other word vectors on the ``wikivar`` couples) takes the ``wikivar`` token
rows: the token space is its own vectors, so its couples, weights and scores are the ``wikivar``
column's.
"""

from __future__ import annotations

import os

import numpy as np

from repro import settings
from repro.evaluate import family, peerfamily, tokentables
from repro.io import store
from repro.errors import InputError
from repro.io.layout import Layout

#: The score-file methods of the token rows: the row "WordLlama" and every member of the token family.
METHODS = tuple(settings.TOKEN_PEERS) + tuple(tokentables.member_methods())
#: The score-file methods of the peer family's token configurations.
PEER_METHODS = tuple(tokentables.peer_method(c) for c in tokentables.PEER_CONFIGS)
#: The key of a token configuration among the peer family's choices (word configurations have theirs).
CONFIG_PREFIX = "wordllama:"


def df_path(layout: Layout) -> str:
    return layout.path("tokens", "df.npz")


def family_path(layout: Layout, setting: str, key: str) -> str:
    return layout.path("tokens", "family", setting, f"{key}.npz")


def family_summary(layout: Layout, setting: str) -> str:
    return layout.path("tokens", "family", setting, "summary.json")


def scores_path(layout: Layout, setting: str) -> str:
    return layout.path("tokens", "scores", f"{setting}.npz")


def space_setup(data: str, source=tokentables.SOURCE):
    """(token vocabulary, (V, d) float32 raw token table, (V,) token counts) of the token space
    ``source`` with the df and counts of ``<data>/tokens/df.npz``, checked to name its tokens."""
    path = df_path(Layout(data))
    names, table, space = tokentables.load(source)
    words, df, n_docs, counts = store.load_word_df(path, counts=True)
    if list(words) != list(names) or counts is None:
        raise InputError(path, f"not the df and counts of every token of {tokenspace_name(source)} "
                               "(make it again: python -m experiments.token_df)")
    return tokentables.vocabulary(space, df, n_docs), table, counts


def tokenspace_name(source) -> str:
    from repro.spaces import tokenspace

    return tokenspace.describe(source)


def token_couples(vocab, pairs, words):
    """The couples ``pairs`` (word ids over ``words``) on the token space (:func:`repro.evaluate.tokentables.couples`)."""
    return tokentables.couples(vocab, pairs, words)


# ---- the tables ---------------------------------------------------------------------------------


def _is_token(name: str) -> bool:
    """Whether a score name ``<method>@<metric>`` is a token row's."""
    method = name.rpartition("@")[0]
    return method in METHODS or method in PEER_METHODS


def load_scores(layout: Layout, setting: str, names) -> dict:
    """The arrays of column ``setting``'s score file (the names of ``names`` that are not token rows
    checked there) with those of its source's token score file (the token rows of ``names``, and
    every token configuration), both on the same couples (their labels checked equal)."""
    names = list(names)
    z = dict(store.load_scores(layout.scores(setting), [n for n in names if not _is_token(n)]))
    path = scores_path(layout, settings.setting(setting).source)
    token = [n for n in names if _is_token(n)] + [f"{m}@{metric}" for m in PEER_METHODS for metric in settings.TABLE_METRICS]
    tz = store.load_scores(path, list(dict.fromkeys(token)))
    for split in ("validation", "test"):
        if not np.array_equal(z[f"{split}_label"], tz[f"{split}_label"]):
            raise InputError(path, f"its {split} couples are not those of {layout.scores(setting)} (make it again)")
    z.update({k: v for k, v in tz.items() if not k.endswith(("_label", "_group"))})
    return z


def load_meta(layout: Layout, setting: str) -> dict:
    """The JSON beside the token score file of column ``setting``'s source."""
    return store.read_json(os.path.splitext(scores_path(layout, settings.setting(setting).source))[0] + ".json")


def merge(z: dict, meta: dict, token_meta: dict) -> tuple[dict, dict]:
    """The score arrays ``z`` and the score file's JSON ``meta`` with the token rows in both families:
    per metric, the learned family's row ``learned_best`` chosen on the validation couples among the
    word members and the token members (:func:`repro.evaluate.family.choose`), and the peer family's row
    ``peer_best`` among the word configurations and the token ones (the same rule as
    :func:`repro.evaluate.peerfamily.choose`, the word grid first); the chosen candidate's scores become the
    row's. ``token_meta``: the token score file's JSON. Returns new (z, meta)."""
    z, meta = dict(z), {**meta, "family": dict(meta["family"]), "peers": dict(meta["peers"])}
    fam, peers = meta["family"], meta["peers"]
    fam["validation_split_error"] = {m: {**fam["validation_split_error"][m], **token_meta["family"][m]}
                                     for m in settings.TABLE_METRICS}
    best = dict(peers["peer_best"])
    word_errors = best["validation_split_error"]
    token_errors = {m: {CONFIG_PREFIX + k: e for k, e in token_meta["peers"][m].items()} for m in settings.TABLE_METRICS}
    best["validation_split_error"] = {m: {**word_errors[m], **token_errors[m]} for m in settings.TABLE_METRICS}
    best["grid"] = int(best["grid"]) + len(tokentables.PEER_CONFIGS)
    order = [c.key for c in peerfamily.grid()] + [CONFIG_PREFIX + c.key for c in tokentables.PEER_CONFIGS]
    chosen = {}
    for metric in settings.TABLE_METRICS:
        key, err = family.choose(fam["validation_split_error"][metric])
        chosen[metric] = {"member": key, "validation_split_error": err}
        _alias(z, "learned_best", settings.family_method(key), metric)
        key, err = family.choose(best["validation_split_error"][metric], order)
        if key.startswith(CONFIG_PREFIX):
            config = peerfamily.from_key(key[len(CONFIG_PREFIX):])
            best[metric] = {"params": {**config.as_dict(), "space": tokentables.SOURCE}, "config": key,
                            "label": tokentables.peer_label(config), "validation_split_error_search": err}
            _alias(z, "peer_best", tokentables.peer_method(config), metric)
    fam["chosen"] = chosen
    peers["peer_best"] = best
    return z, meta


def _alias(z: dict, row: str, method: str, metric: str) -> None:
    for split in ("validation", "test"):
        z[settings.score_key(split, row, metric)] = z[settings.score_key(split, method, metric)]


def columns(layout: Layout, cols, names) -> tuple[dict, dict]:
    """({column: score arrays}, {column: score JSON}) of the columns ``cols`` with the token rows taken
    in (:func:`load_scores`, :func:`merge`): what :mod:`experiments.tables` reads."""
    files, meta = {}, {}
    for s in cols:
        got = store.read_json_if_any(os.path.splitext(layout.scores(s))[0] + ".json") or {}
        files[s], meta[s] = merge(load_scores(layout, s, names), got, load_meta(layout, s))
    return files, meta
