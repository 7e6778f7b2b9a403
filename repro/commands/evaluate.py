"""``repro evaluate``: weights and labelled couples to the optimal split error and JS divergence (paper, section 5).

    repro evaluate --couples test.tsv --validation val.tsv --model enc.npz
    repro evaluate --couples test.tsv --vectors glove300/ --df df.npz   # the shipped weights
    repro evaluate --couples test.tsv --model enc.npz --metric cosine   # scores by the cosine

Couples are scored by minus the Euclidean distance of their vectors (the paper's), or by their
cosine with ``--metric cosine``; the default is the metric the model file records. The
threshold is chosen on ``--validation`` (the paper's protocol) or, without it, on the couples
themselves (their optimal split error, as in the cross-validation). Prints one JSON object,
which names the metric; ``--out`` also writes it to a file.

``threshold`` is on the scores' own scale (what ``repro similarity`` prints): a couple scoring
above it is called related. The protocol chooses it on the validation scores min-max
normalised to [0, 1], ``threshold_normalised``. ``js_divergence`` is the Jensen-Shannon
divergence (base 2) of the related and the unrelated couples' score histograms: 0 when the two
overlap entirely, 1 when they are apart; higher separates better. Its value depends on the number
of couples (every one of the 10,000 bins gets 1 added), so compare it only between methods on the
same couples.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

from repro import metrics, store
from repro.errors import InputError, run
from repro.commands.options import add_encoder_options, add_metric_option, encoder_from, report_warnings


#: What the numbers of the result mean, printed with them.
ABOUT = {
    "split_error": "(false positive rate + false negative rate) / 2 at the threshold; 0.5 is chance",
    "threshold": "on the scores' own scale: a couple scoring above it is called related",
    "threshold_normalised": "the same on the validation scores min-max normalised to [0, 1], where the protocol "
                            "chooses it",
    "js_divergence": "Jensen-Shannon divergence (base 2) of the related and unrelated scores' histograms: 0 = they "
                     "overlap, 1 = apart; comparable only on the same couples",
}


def score_threshold(theta: float, lo: float, hi: float) -> float:
    """The threshold ``theta`` of the min-max normalised scale (validation extremes ``lo``, ``hi``)
    on the scores' own scale."""
    return lo + theta * (hi - lo)


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
        err, theta = metrics.split_error(val, y_val, test, y_test)
        js = metrics.js_divergence(val, test, y_test)
        lo, hi = metrics.minmax_bounds(val)
    except ValueError as err_:
        raise InputError(args.validation or args.couples, str(err_)) from None
    result = {"split_error": err, "threshold": score_threshold(theta, lo, hi), "threshold_normalised": theta,
              "js_divergence": js, "couples": int(y_test.size),
              "related": int(y_test.sum()), "threshold_from": "validation" if args.validation else "the couples themselves",
              "metric": enc.metric, "weights": args.model or "shipped", "about": ABOUT}
    if args.out:
        store.write_json(args.out, result)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
