"""Figures 2 and 3 of the paper, as PNG and PDF.

    python -m experiments.figures --data data --results results

Figure 2: distributions of test-couple distances, related against unrelated, for the
mean baseline and for learned median weights (Wikipedia, 20 words).
Figure 3: learned weight magnitudes for 20-word texts, contrastive and median loss.
"""

from __future__ import annotations

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from repro import settings  # noqa: E402
from repro.evaluate import report
from repro.io import store
from repro.errors import run  # noqa: E402
from repro.io.layout import Layout  # noqa: E402


def save(fig, results: str, name: str) -> list[str]:
    """``fig`` as ``<name>.png`` and ``.pdf`` in ``results``, atomically; the same data give the same bytes."""
    paths = []
    for ext in ("png", "pdf"):
        path = os.path.join(results, f"{name}.{ext}")
        with store.atomic_file(path, "wb") as out:
            # no creation date in the PDF: the same data give the same bytes
            fig.savefig(out, format=ext, dpi=150, bbox_inches="tight",
                        metadata={"CreationDate": None} if ext == "pdf" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def figure2(scores: dict, setting_title: str):
    """Histograms of related vs unrelated distances (scores are minus distances)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    y = scores["test_label"].astype(bool)
    for ax, (method, title) in zip(axes, (("mean", "Mean of word vectors"),
                                          ("learned_median", "Learned weights, median loss"))):
        d = -scores[f"test_{method}"]
        lo, hi = d.min(), d.max()
        d = (d - lo) / (hi - lo)  # normalised distance, as the paper's axis
        bins = np.linspace(0, 1, 61)
        ax.hist(d[~y], bins=bins, color="0.75", label="unrelated couples")
        ax.hist(d[y], bins=bins, color="0.25", alpha=0.8, label="related couples")
        ax.set_title(title)
        ax.set_xlabel("Normalised Euclidean distance")
        ax.legend(frameon=False)
    axes[0].set_ylabel("Number of couples")
    fig.suptitle(f"Distances between the texts of test couples ({setting_title})")
    return fig


def figure3(weights: dict):
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for loss, style in (("contrastive", "o--"), ("median", "s-")):
        w = np.asarray(weights[loss], float)
        ax.plot(np.arange(1, w.size + 1), w / np.abs(w).max(), style, label=f"{loss} loss")
    ax.set_xlabel("Weight index j (words sorted by descending idf)")
    ax.set_ylabel(r"Weight magnitude $w_j\ /\ \mathrm{max}_k\ w_k$")
    ax.set_xticks(np.arange(1, 21, 1 if len(weights["median"]) <= 20 else 5))
    ax.axhline(0, color="0.8", lw=0.8)
    ax.set_title("Learned weights for texts of 20 words")
    ax.legend(frameon=False)
    return fig


def error_intervals(results: dict, titles: dict, labels: dict, intervals=(("split_error_ci95", "95% CI"),)):
    """Split error with its intervals, for every row (method) and column (setting) of a table:
    one panel per column, a point per method and one bar per interval, so that overlaps (the
    differences the data cannot tell apart) show at a glance."""
    cols = list(results)
    methods = list(labels)
    fig, axes = plt.subplots(1, len(cols), figsize=(4.2 * len(cols), 0.42 * len(methods) + 1.6), sharey=True,
                             squeeze=False)
    y = np.arange(len(methods))[::-1]
    shades = ("0.2", "0.6")
    for ax, s in zip(axes[0], cols):
        for k, (key, name) in enumerate(intervals):
            lo = np.array([results[s][m][key][0] for m in methods])
            hi = np.array([results[s][m][key][1] for m in methods])
            off = (k - (len(intervals) - 1) / 2) * 0.22
            ax.hlines(y + off, 100 * lo, 100 * hi, color=shades[k % 2], lw=2.5 - k, label=name)
        err = np.array([results[s][m]["split_error"] for m in methods])
        ax.plot(100 * err, y, "o", color="k", ms=4, label="split error")
        best = int(np.argmin(err))
        ax.axvline(100 * err[best], color="0.8", lw=0.8, zorder=0)
        ax.set_title(titles[s], fontsize=10)
        ax.set_xlabel("split error (%)")
    axes[0][0].set_yticks(y, [labels[m] for m in methods], fontsize=8)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=len(names), frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
    return fig


def seed_errors(results: dict, titles: dict, labels: dict):
    """Split error over seeds (issue 46), for every row and column of a table: one panel per
    column, per method the seeds' min-max as a bar, each seed as a small dot and their mean as a
    point, so that what one run could have given shows at a glance. ``results`` {column: {method:
    {"split_error": {"per_seed", "mean", "min", "max"}}}} (experiments.seedtables)."""
    cols = list(results)
    methods = list(labels)
    fig, axes = plt.subplots(1, len(cols), figsize=(4.2 * len(cols), 0.42 * len(methods) + 1.6), sharey=True,
                             squeeze=False)
    y = np.arange(len(methods))[::-1]
    for ax, s in zip(axes[0], cols):
        sp = [results[s][m]["split_error"] for m in methods]
        ax.hlines(y, [100 * x["min"] for x in sp], [100 * x["max"] for x in sp], color="0.6", lw=2.5,
                  label="seeds' range")
        for yi, x in zip(y, sp):
            ax.plot([100 * v for v in x["per_seed"]], [yi] * len(x["per_seed"]), "|", color="0.35", ms=6)
        mean = np.array([x["mean"] for x in sp])
        ax.plot(100 * mean, y, "o", color="k", ms=4, label="mean over the seeds")
        ax.axvline(100 * mean.min(), color="0.8", lw=0.8, zorder=0)
        ax.set_title(titles[s], fontsize=10)
        ax.set_xlabel("split error (%)")
    axes[0][0].set_yticks(y, [labels[m] for m in methods], fontsize=8)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=len(names), frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--results", required=True)
    args = ap.parse_args(argv)
    layout = Layout(args.data)
    scores = report.table_scores(store.load_scores(layout.scores("wiki20"), ("mean@euclidean", "learned_median@euclidean")),
                                 "euclidean", ("mean", "learned_median"))
    weights = {loss: store.load_model(layout.model("wiki20", loss)).weights for loss in settings.LOSSES}
    os.makedirs(args.results, exist_ok=True)
    out = save(figure2(scores, "Wikipedia, 20 words"), args.results, "figure2")
    out += save(figure3(weights), args.results, "figure3")
    print("figures: " + ", ".join(out))


if __name__ == "__main__":
    sys.exit(run(main))
