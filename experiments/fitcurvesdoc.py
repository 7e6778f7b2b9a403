"""The outputs of ``make fit-curves`` (:mod:`experiments.fit_curves`): the figure, the generated block
``fit-curves`` of docs/RESULTS.md and the README's sentence (block ``fit-curves-summary``), all
written from the result JSON."""

from __future__ import annotations

import os

from repro.io.readmeblock import ReadmeBlock

ROWS = {"start": "the start, as it is", "scratch": "fit from the paper's start", "warm": "fit from the start",
        "chosen": "chosen on validation"}
TITLES = {"sts-wordllama": "STS-B, WordLlama tokens", "sts-glove50": "STS-B, GloVe 6B 50d",
          "wikivar": "Wikipedia, variable length", "twitter": "Twitter, all sources"}


def figure(result: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(result["domains"])
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.4), squeeze=False)
    for ax, name in zip(axes[0], names):
        points = result["domains"][name]["points"]
        x = [p["size"] for p in points]
        for row, style in zip(ROWS, ("k--", "C0-o", "C1-s", "C2-^")):
            ax.plot(x, [100 * p["mean"][row] for p in points], style, label=ROWS[row], markersize=4)
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(x)
        ax.set_xticklabels([f"{v:,}" for v in x], fontsize=7, rotation=30)
        ax.set_title(TITLES.get(name, name), fontsize=10)
        ax.set_xlabel("training couples")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"test split error, % (mean of {len(result['seeds'])} seeds)")
    axes[0][-1].legend(fontsize=8)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)


def pays_from(domain: dict) -> int | None:
    """The fewest couples from which the chosen result is better than the start (None: never)."""
    better = [p["size"] for p in domain["points"] if p["verdict"]["start"]["word"] == "better"]
    return min(better) if better else None


def block(result: dict, png: str) -> str:
    seeds = result["seeds"]
    lines = [f"Written by `make fit-curves` (commit `{str(result['commit'])[:12]}`) from {len(seeds)} seeds "
             f"({', '.join(map(str, seeds))}): the test split error of the start, of the fit from the paper's start, "
             "of the fit from the start and of the result chosen on validation, each against the number of training "
             "couples; verdicts of the chosen result by the project's rule over seeds (no worse: level or better).", "",
             f"![learning curves]({png})", "",
             "| domain (start) | couples | start | scratch | warm | chosen | chosen vs start | chosen vs scratch |",
             "|---|---:|---:|---:|---:|---:|---|---|"]
    for name, d in result["domains"].items():
        for p in d["points"]:
            m, v = p["mean"], p["verdict"]
            lines.append(f"| {TITLES.get(name, name)} ({d['start']}) | {p['size']:,}{' (all)' if p['all'] else ''} | "
                         + " | ".join(f"{100 * m[r]:.2f}" for r in ROWS)
                         + f" | {v['start']['word']} ({100 * v['start']['difference']:+.2f}) | "
                           f"{v['scratch']['word']} ({100 * v['scratch']['difference']:+.2f}) |")
    worse = [(n, p["size"]) for n, d in result["domains"].items() for p in d["points"]
             if p["verdict"]["start"]["word"] in ("worse", "depends on the seed")]
    lines += ["", "Never worse than the start: " + ("held at every size and domain." if not worse else
                                                   "NOT held at " + ", ".join(f"{n} {s:,}" for n, s in worse) + ".")]
    if result["left_out"]:
        lines += ["", "Left out (their files missing on this run): " + ", ".join(result["left_out"]) + "."]
    clusters = [TITLES.get(n, n) for n, d in result["domains"].items() if not d["clusters"]]
    if clusters:
        lines += ["", "The test couples are taken as independent (no clusters recorded) in: " + ", ".join(clusters) + "."]
    return "\n".join(lines)


def sentence(result: dict) -> str:
    pays = {TITLES.get(n, n): pays_from(d) for n, d in result["domains"].items()}
    yes = [f"{t} from {n:,} couples" for t, n in pays.items() if n]
    no = [t for t, n in pays.items() if not n]
    held = all(p["verdict"]["start"]["word"] in ("better", "level") for d in result["domains"].values()
               for p in d["points"])
    return ("Does learning pay? Better than its start (test split error, over seeds): "
            + ("; ".join(yes) if yes else "nowhere") + (f"; at no size tried: {', '.join(no)}" if no else "")
            + ". The result chosen on validation was " + ("never worse than its start" if held else
                                                          "worse than its start somewhere")
            + " (`make fit-curves`, [docs/RESULTS.md](docs/RESULTS.md#learning-curves)).")


def write_outputs(result: dict, json_path: str, results_md: str) -> None:
    png = os.path.join(os.path.dirname(json_path), "fit_curves.png")
    figure(result, png)
    rel = os.path.relpath(png, os.path.dirname(results_md))
    ReadmeBlock(results_md, "fit-curves").fill_body(block(result, rel))
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(results_md))), "README.md")
    if os.path.exists(readme):
        ReadmeBlock(readme, "fit-curves-summary").fill_body(sentence(result))
