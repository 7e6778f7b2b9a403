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

from repro import settings, store  # noqa: E402
from repro.errors import run  # noqa: E402
from repro.layout import Layout  # noqa: E402


def _save(fig, results: str, name: str) -> list[str]:
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--results", required=True)
    args = ap.parse_args(argv)
    layout = Layout(args.data)
    scores = store.load_scores(layout.scores("wiki20"), ("mean", "learned_median"))
    weights = {loss: store.load_model(layout.model("wiki20", loss))["weights"] for loss in settings.LOSSES}
    os.makedirs(args.results, exist_ok=True)
    out = _save(figure2(scores, "Wikipedia, 20 words"), args.results, "figure2")
    out += _save(figure3(weights), args.results, "figure3")
    print("figures: " + ", ".join(out))


if __name__ == "__main__":
    sys.exit(run(main))
