"""``repro evaluate``: weights and labelled couples to the optimal split error and JS divergence (paper, section 5).

    repro evaluate --couples test.tsv --validation val.tsv --model enc.npz
    repro evaluate --couples test.tsv --vectors glove300/ --df df.npz   # the shipped weights
    repro evaluate --couples test.tsv --model enc.npz --metric cosine   # scores by the cosine

Couples are scored by minus the Euclidean distance of their vectors (the paper's), or by their
cosine with ``--metric cosine``; the default is the metric the model file records (for a model of
``repro train``, the distance it was trained under). The threshold is chosen on ``--validation``
(the paper's protocol) or, without it, on the couples themselves (their optimal split error, as in
the cross-validation). Prints one JSON object, which names the metric and why (``metric_from``);
``--out`` also writes it to a file.

``threshold`` is on the scores' own scale (what ``repro similarity`` prints): a couple scoring
above it is called related. The protocol chooses it on the validation scores min-max
normalised to [0, 1], ``threshold_normalised`` (one of 0, 0.001, ..., 1). ``js_divergence`` is
the Jensen-Shannon divergence (base 2) of the related and the unrelated couples' score histograms:
0 when the two overlap entirely, 1 when they are apart; higher separates better. From 1,000 test
couples on, the histograms are the paper's 10,000 bins on [-1, 1.5]; below, fewer bins, chosen from
the number of couples (``repro.core.metrics.js_bins``), since with 10,000 bins nearly every score of a
small set sits alone in its bin and the value depends only on the label counts. ``js_bins`` gives
the number and ``js_bins_from`` why. Every bin gets 1 added, so the value depends on the number of
couples: compare it only between methods on the same couples.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

from repro.core import metrics
from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import add_encoder_options, add_metric_option, encoder_from, report_warnings
from repro.core.textmetric import METRICS


#: What the numbers of the result mean, printed with them.
ABOUT = {
    "split_error": "(false positive rate + false negative rate) / 2 at the threshold; 0.5 is chance",
    "threshold": "on the scores' own scale: a couple scoring above it is called related",
    "threshold_normalised": "the same on the validation scores min-max normalised to [0, 1], where the protocol "
                            "chooses it",
    "js_divergence": "Jensen-Shannon divergence (base 2) of the related and unrelated scores' histograms (js_bins "
                     "bins): 0 = they overlap, 1 = apart; comparable only on the same couples",
}


def js_bins_from(n_related: int, n_unrelated: int) -> str:
    """Why :func:`repro.core.metrics.js_bins` chose its number of bins for these test couples."""
    n, bins = n_related + n_unrelated, metrics.js_bins(n_related, n_unrelated)
    if bins == metrics.JS_BINS:
        return (f"the paper's {bins:,} bins on [-1, 1.5], +1 in every bin ({n:,} test couples, at least "
                f"{metrics.JS_PAPER_COUPLES:,})")
    m = min(n_related, n_unrelated)
    return (f"{bins} bins on [-1, 1.5], +1 in every bin: 5 x ceil(sqrt({m}) / 2) for the smaller class's {m:,} "
            f"couples; with {n:,} test couples (under {metrics.JS_PAPER_COUPLES:,}) the paper's "
            f"{metrics.JS_BINS:,} bins leave nearly every score alone in its bin, and the divergence would depend "
            "only on the label counts")


def metric_from(enc, args) -> str:
    """Why ``enc`` scored by its metric: ``--metric``, the model file's metric (and where that came
    from, :attr:`repro.encode.encoder.Encoder.metric_from`), or the shipped model's."""
    if args.metric:
        return "--metric"
    if not args.model:
        return {"default": "the shipped default's (--pretrained default: the cosine, as it was chosen on STS-B dev)",
                "best": "the learned family's winner's (--pretrained best: weights learned under 1 - cos)",
                "paper": "the paper's (--pretrained paper: minus the Euclidean distance, eq. 2)"}[args.pretrained]
    how, metric = enc.metric_from, enc.metric
    if how == "training":
        return f"the model's: the distance it was trained under ({metric}" + (", the paper's)" if metric == "euclidean" else ")")
    if how == "given":
        return "the model's: chosen when it was made"
    if how == "shipped":
        return "the model's: its shipped weights'"
    if how == "default":
        return "the model's: the paper's Euclidean distance (its weights were not trained by repro train or fit)"
    trained = enc.record_.distance if enc.record_ is not None else None
    hint = (f"; it was trained under {trained}: --metric {trained} scores it the way it was learned"
            if trained in METRICS and trained != metric else "")
    return f"the model's, as its file records (a file older than the training distance as default metric{hint})"


def score_threshold(theta: float, lo: float, hi: float) -> float:
    """The threshold ``theta`` of the min-max normalised scale (validation extremes ``lo``, ``hi``)
    on the scores' own scale."""
    return lo + theta * (hi - lo)


def protocol(val, y_val, test, y_test) -> dict:
    """The protocol's numbers of validation and test scores and labels (paper, section 5): split
    error, threshold (on the scores' scale and normalised), JS divergence and its bins, couples.
    The normalised threshold is a point of linspace(0, 1, 1001), shown as its 3 decimals (0.814,
    not 0.8140000000000001); the threshold on the scores' scale is computed from the point itself."""
    err, theta = metrics.split_error(val, y_val, test, y_test)
    js = metrics.js_divergence(val, test, y_test, bins="auto")
    lo, hi = metrics.minmax_bounds(val)
    n_rel = int(np.count_nonzero(np.asarray(y_test) == 1))
    n_unrel = len(y_test) - n_rel
    return {"split_error": err, "threshold": score_threshold(theta, lo, hi), "threshold_normalised": round(theta, 3),
            "js_divergence": js, "js_bins": metrics.js_bins(n_rel, n_unrel), "js_bins_from": js_bins_from(n_rel, n_unrel),
            "couples": len(y_test), "related": n_rel}


def _scores(enc, path: str):
    couples, labels = store.read_couples(path, labels=True)
    if labels.all() or not labels.any():
        raise InputError(path, "both related (1) and unrelated (0) couples are needed")
    return enc.similarity([a for a, _ in couples], [b for _, b in couples]), labels


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="repro evaluate", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--couples", required=True, help="labelled test couples: TSV or .jsonl")
    ap.add_argument("--validation", help="labelled validation couples that choose the threshold")
    ap.add_argument("--out", help="also write the result here (.json)")
    add_metric_option(ap)
    add_encoder_options(ap)
    args = ap.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_from(args)
        test, y_test = _scores(enc, args.couples)
        val, y_val = _scores(enc, args.validation) if args.validation else (test, y_test)
    report_warnings(caught)
    try:
        numbers = protocol(val, y_val, test, y_test)
    except ValueError as err_:
        raise InputError(args.validation or args.couples, str(err_)) from None
    result = {**numbers, "threshold_from": "validation" if args.validation else "the couples themselves",
              "metric": enc.metric, "metric_from": metric_from(enc, args), "weights": args.model or "shipped",
              "about": ABOUT}
    if args.out:
        store.write_json(args.out, result)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
