"""The parts of :meth:`repro.encode.encoder.Encoder.fit` that choose (issue 59; beyond the paper):
where Algorithm 1 starts (``init``), which couples validate (``validation``), and the report of
what learning bought (:attr:`Encoder.fit_report_`). The choice itself is :mod:`repro.core.warmstart`.

``init``:

* None or ``"paper"``: the paper's constant start (Algorithm 1, line 1), as the tables' fits;
* ``"shipped"``: the encoder's own weights where it has them (``Encoder.pretrained``), else the
  shipped default model's;
* ``"default"``, ``"best"``: that shipped model's weights; ``"wikivar"``: the paper's weights
  learned on Wikipedia (the shipped ``model="paper"``);
* a path: a weights file (:func:`repro.io.store.save_weights`) or an encoder file (``repro train``);
* an array: the weights themselves.

A start of another length than the encoder's ``n_max`` is interpolated onto it as the model
interpolates (:func:`repro.core.warmstart.start_weights`).

``validation``: None (no choice: Algorithm 1 from ``init``); ``(couples, labels)``; or a share in
(0, 1) of the training couples held out, the same share of each class, drawn from ``seed`` (they
then never train).
"""

from __future__ import annotations

import os

import numpy as np

from repro.core.warmstart import start_weights

#: The names ``init`` takes besides a path or an array.
NAMED = ("paper", "shipped", "default", "best", "wikivar")


def start_of(init, own_weights, n_max: int) -> tuple[np.ndarray | None, str]:
    """((n_max,) float32 start, or None for the paper's; its name for the report) of ``init``."""
    from repro.encode import shippedweights
    from repro.io import store

    if init is None or (isinstance(init, str) and init == "paper"):
        return None, "paper"
    if isinstance(init, str) and init == "shipped":
        if own_weights is not None:
            return start_weights(own_weights, n_max), "shipped"
        return start_weights(shippedweights.read("default").weights, n_max), "shipped (default)"
    if isinstance(init, str) and init in ("default", "best", "wikivar"):
        return start_weights(shippedweights.read("paper" if init == "wikivar" else init).weights, n_max), init
    if isinstance(init, (str, os.PathLike)):
        path = os.fspath(init)
        if not os.path.isfile(path):
            raise ValueError(f"init: {path!r} is neither a weights or encoder file nor one of {', '.join(NAMED)}")
        return start_weights(store.load_weights(path)[0], n_max), path
    return start_weights(np.asarray(init, np.float32), n_max), "given weights"


def held_out(couples, labels, validation, seed: int):
    """(training couples, their labels, validation couples, their labels, where they came from):
    ``validation`` as the module says; (couples, labels, None, None, None) without one."""
    couples, labels = list(couples), np.asarray(labels)
    if validation is None:
        return couples, labels, None, None, None
    if isinstance(validation, (int, float)) and not isinstance(validation, bool):
        share = float(validation)
        if not 0.0 < share < 1.0:
            raise ValueError(f"validation: a share of the couples to hold out must lie strictly between 0 and 1, "
                             f"got {share:g}")
        if len(labels) != len(couples):
            raise ValueError(f"labels: {len(labels):,} labels but {len(couples):,} couples")
        rng = np.random.default_rng(seed)
        held = np.zeros(len(labels), bool)
        for value in (0, 1):
            members = np.flatnonzero(labels == value)
            take = max(1, int(round(share * members.size))) if members.size > 1 else 0
            held[rng.permutation(members)[:take]] = True
        keep = np.flatnonzero(~held)
        val = np.flatnonzero(held)
        return ([couples[i] for i in keep], labels[keep], [couples[i] for i in val], labels[val],
                f"held out: {share:.0%} of the couples of each class, drawn from seed {seed}")
    if not (isinstance(validation, tuple) and len(validation) == 2):
        raise ValueError("validation: expected (couples, labels) or a share of the training couples in (0, 1)")
    return couples, labels, list(validation[0]), np.asarray(validation[1]), "given"


def report(start: str, choice, train_couples: int, validation_couples: int, validation_from: str | None) -> dict:
    """:attr:`Encoder.fit_report_`: the couples used, the start, the validation split error of the
    start and of the result, every candidate's, and the choice made (None where there was none)."""
    out = {"couples": {"train": int(train_couples), "validation": int(validation_couples),
                       "validation_from": validation_from}, "start": start}
    if choice is None:
        return {**out, "choice": "warm" if start != "paper" else "paper", "validation_error": None, "candidates": None}
    return {**out, "choice": choice.name, "kept_start": choice.kept_start,
            "validation_error": {"start": choice.errors["start"], "result": choice.errors[choice.name]},
            "candidates": dict(choice.errors)}


def lines(rep: dict) -> list[str]:
    """The report in words, as ``repro train`` prints it."""
    c = rep["couples"]
    out = [f"couples: {c['train']:,} to train" + (f", {c['validation']:,} to validate ({c['validation_from']})"
                                                   if c["validation"] else ", none to validate")]
    if rep["candidates"] is None:
        out.append(f"start: {rep['start']}; no validation couples, so no choice: Algorithm 1 from the start")
        return out
    err = rep["validation_error"]
    out.append(f"validation split error: start ({rep['start']}) {err['start']:.4f}, result {err['result']:.4f}")
    out.append("candidates: " + ", ".join(f"{k} {v:.4f}" for k, v in rep["candidates"].items())
               + f"; kept: {rep['choice']}" + (" (no fit beat the start)" if rep.get("kept_start") else ""))
    return out
