"""The STS tables in Markdown and the README's STS blocks: what ``make sts`` writes from its results (not in the paper).

The numbers come from :mod:`repro.evaluate.sts.protocol` (the main table, :func:`main_table_md`) and
:mod:`repro.evaluate.sts.calibration` (fse's published table, :func:`calibration_md`); the inductive and
token-space tables write their own (:mod:`experiments.stsinductive`, :mod:`experiments.ststokens`).
"""

from __future__ import annotations

from experiments import stsdefault, stsinductive, ststokens
from repro.spaces import wordmap
from repro.io.readmeblock import ReadmeBlock, readme_markers, short_commit
from repro.evaluate.sts.calibration import PUBLISHED

#: The main table's rows (:func:`experiments.sts.rows`) and their labels, in the table's order.
ROWS = {"mean": "Mean", "mean_idf": "Mean, idf-weighted", "sif": "SIF (a = 1e-3)", "usif": "uSIF",
        "zipf": "Zipfian whitening", "peer_best": "Peers, best configuration (dev)", "shipped": "Shipped weights (Wikipedia, median loss)",
        "shipped_best": "Shipped weights, Encoder.pretrained()'s default (the learned family's winner on Wikipedia)",
        "learned": "Weights learned on STS-B train",
        "learned_best": "Weights learned on STS-B train, best transform (dev)"}


def row_labels(default: dict | None) -> dict:
    """The rows' labels: :data:`ROWS`, the row ``shipped_best`` no longer called the default where
    ``make default`` recorded one (:func:`experiments.stsdefault.default_record`)."""
    if not default:
        return ROWS
    return {**ROWS, "shipped_best": "Shipped weights, the learned family's winner on Wikipedia (`model=\"best\"`)"}


#: The calibration's rows (:func:`repro.evaluate.sts.calibration.calibration`) and their labels.
CALIBRATION_ROWS = {"mean": "Mean (fse `Average`)", "sif": "SIF, 10 components (fse `SIF(components=10)`)",
                    "usif": "uSIF, length 11 (fse `uSIF(length=11)`)"}
CALIBRATION_HEAD = ("Calibration, **transductive** (components fitted on the test sentences scored): fse 1.0.0's "
                    "README protocol run through this library (raw GloVe 6B 50d, the whole 400,000-word vocabulary, "
                    "wordfreq `en` frequencies as fse's `lang_freq` induces them, fse's tokens); each row must land "
                    "within 1.0 point of fse's published Pearson. Not comparable with the table above, which fits "
                    "nothing on test.")


def calibration_md(cal: dict) -> str:
    """The calibration table: each row against fse's published Pearson."""
    lines = ["| Method (fse's protocol, transductive) | test Pearson | fse 1.0.0 published | difference | within 1.0 "
             "| test Spearman |", "|---|---:|---:|---:|:---:|---:|"]
    for name, label in CALIBRATION_ROWS.items():
        r = cal[name]
        lines.append(f"| {label} | {r['pearson']:.2f} | {r['published']:.2f} | {r['difference']:+.2f} | "
                     f"{'yes' if abs(r['difference']) <= 1.0 else 'NO'} | {r['spearman']:.2f} |")
    return "\n".join(lines) + "\n"


def findings(results: dict, labels: dict = ROWS) -> str:
    """The verdicts of the STS table, from its results: the best row, the rows level with it
    (their paired 95% interval contains 0), the paper's shipped weights against the best peer so
    treated, and the rows beyond the paper (the shipped default, the family learned on STS-B train)
    against the best peer chosen on dev; ``labels``: the rows' (:func:`row_labels`)."""
    label = {(m, r): labels[m] + (", components removed" if r == "with" else "") for m in results for r in results[m]}
    best = next(k for k in label if results[k[0]][k[1]]["test"]["vs_best"] is None)
    level = [label[k] for k in label if k != best
             and results[k[0]][k[1]]["test"]["vs_best"]["low"] <= 0 <= results[k[0]][k[1]]["test"]["vs_best"]["high"]]
    out = [f"- **STS Benchmark test, Pearson:** best row {label[best]} ({results[best[0]][best[1]]['test']['pearson']:.1f}); "
           + ("level with it (paired 95% interval contains 0): " + "; ".join(level) if level
              else "every other row is below it (paired 95% interval below 0)") + "."]
    for removal in ("without", "with"):
        d = results["shipped"][removal]["test"]["vs_best_peer"]
        verdict = "above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with"
        out.append(f"- **The paper's shipped weights {'with' if removal == 'with' else 'without'} common components removed:** "
                   f"{verdict} {labels[d['peer']]}, the best peer so treated ({d['difference']:+.1f} points, "
                   f"{d['low']:+.1f} to {d['high']:+.1f}).")
    for m in ("shipped_best", "learned_best"):  # beyond the paper: against the best peer chosen on dev
        if m not in results:
            continue
        parts, peer = [], None
        for removal in ("without", "with"):
            d = results[m][removal]["test"]["vs_dev_best_peer"]
            peer = d and labels[d["peer"]] + (", components removed" if d["removal"] == "with" else "")
            verdict = "the peer" if d is None else ("above" if d["low"] > 0 else "below" if d["high"] < 0 else "level with") + " it"
            parts.append(f"{removal} components removed: {verdict}" + ("" if d is None else
                         f" ({d['difference']:+.1f} points, {d['low']:+.1f} to {d['high']:+.1f})"))
        out.append(f"- **{labels[m]}**, against the best peer chosen on dev ({peer}): " + "; ".join(parts) + ".")
    return "\n".join(out) + "\n"


def findings_block(prov: dict) -> str:
    """What ``make sts`` writes between the README's ``findings-sts`` markers, from ``prov``."""
    start, end = readme_markers("findings-sts")
    return "\n".join([start, "", f"Written by `make sts` from `results/sts.json` (commit "
                       f"`{short_commit(prov['commit'])}`):", "", findings(prov["results"], row_labels(prov.get("default")))
                       + (stsinductive.finding(prov["inductive"]["results"]) if prov.get("inductive") else "")
                       + (ststokens.finding(prov["tokens"]["results"]) if prov.get("tokens") else "")
                       + stsdefault.finding(prov.get("default"))
                       + calibration_finding(prov.get("calibration")), end])


def calibration_finding(cal: dict | None) -> str:
    """One line: does the harness reproduce fse's published table (the calibration, transductive)?"""
    if not cal:
        return ""
    rows = [n for n in PUBLISHED if n in cal]
    within = all(abs(cal[n]["difference"]) <= 1.0 for n in rows)
    got = "; ".join(f"{CALIBRATION_ROWS[n].split(' (')[0]} {cal[n]['pearson']:.2f} against {cal[n]['published']:.2f}"
                    for n in rows)
    return (f"- **Calibration against fse 1.0.0's published STS-B table (its protocol, transductive):** "
            f"{'every row within' if within else 'NOT every row within'} 1.0 point ({got}).\n")


def chosen_on_dev(chosen: dict) -> str:
    """The one line under the table naming every choice made on dev (``chosen``: sts.json's
    ``chosen_on_dev``)."""
    learned, zipf, best, peer = chosen["learned"], chosen["zipf"], chosen["learned_best"], chosen["best_peer"]
    distance = "1 - cos" if best["distance"] == "cosine" else "the Euclidean distance"
    return (f"Chosen on dev: learned weights' couples at gold score <= {learned['lo']:g} and >= {learned['hi']:g}; "
            f"Zipfian whitening mode \"{zipf['mode']}\"; best transform: {wordmap.named(best['map']).label} "
            f"(`{best['map']}`), learned under {distance}; best peer: "
            f"{ROWS[peer['peer']]}{', components removed' if peer['removal'] == 'with' else ''}"
            + (f"; the peers' best configuration: {chosen['peer_best']['without']} (without removal), "
               f"{chosen['peer_best']['with']} (with)" if chosen.get("peer_best") else "") + ".\n")


def main_table_md(results: dict, dev_peer: tuple, labels: dict = ROWS) -> str:
    """The main table and the table of each row's interval and difference from the best peer on dev."""
    lines = ["| Method | test Pearson | with components removed | against the best, points (95%) | with components "
             "removed | test Spearman | with components removed | dev Pearson | with components removed |",
             "|---|" + "---:|" * 8]
    best = max(results[m][r]["test"]["pearson"] for m in results for r in ("without", "with"))
    for name, label in labels.items():
        r = results[name]
        cells = []
        for key, s in (("pearson", "test"), ("vs_best", "test"), ("spearman", "test"), ("pearson", "dev")):
            for removal in ("without", "with"):
                v = r[removal][s][key]
                if key == "vs_best":
                    cells.append("best" if v is None else f"{v['difference']:+.1f} ({v['low']:+.1f} to {v['high']:+.1f})")
                else:
                    cells.append(f"**{v:.1f}**" if key == "pearson" and s == "test" and v == best else f"{v:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    peer_label = ROWS[dev_peer[0]] + (", components removed" if dev_peer[1] == "with" else "")
    lines += ["", f"Each row's test Pearson with its 95% bootstrap interval, and its paired difference from the best "
              f"peer chosen on dev ({peer_label}):", "",
              "| Method | test Pearson (95%) | with components removed | against the best peer, points (95%) | "
              "with components removed |", "|---|---:|---:|---:|---:|"]
    for name, label in labels.items():
        r = results[name]
        cells = [f"{r[x]['test']['pearson']:.1f} ({r[x]['test']['interval']['low']:.1f} to "
                 f"{r[x]['test']['interval']['high']:.1f})" for x in ("without", "with")]
        for x in ("without", "with"):
            v = r[x]["test"]["vs_dev_best_peer"]
            cells.append("the peer" if v is None else f"{v['difference']:+.1f} ({v['low']:+.1f} to {v['high']:+.1f})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def readme_sts_block(readme: ReadmeBlock, prov: dict, main_md: str, cal_md: str, ind_md: str = "",
                     tok_md: str = "") -> str:
    """What ``make sts`` writes between the README's ``sts`` markers, from ``prov``."""
    chosen = prov["learned"]["chosen"]
    return "\n".join([
        readme.start, "", f"Made by `make sts` (commit `{short_commit(prov['commit'])}`, seed {prov['seed']}) in "
        f"{prov['seconds']:.0f} s on {prov['hardware'].get('cpu', prov['hardware'].get('machine'))} "
        f"({prov['hardware'].get('cpus')} cores).", "", main_md,
        f"STS Benchmark test: {prov['pairs']['test']:,} pairs; vocabulary: the {prov['vocabulary']:,} GloVe words of "
        f"the train and dev sentences. Learned weights: couples of STS-B train at gold score <= {chosen['lo']:g} "
        f"(unrelated) and >= {chosen['hi']:g} (related), chosen on dev, kappa {prov['kappa']:g} (the shipped model's). "
        "Cosine similarity throughout; correlations x 100. Against the best: the paired bootstrap (2,000 resamples "
        "of the test pairs, taken as independent) of the difference in test Pearson from the best row.", "",
        *([stsinductive.HEAD, "", ind_md] if ind_md else []), *([ststokens.HEAD, "", tok_md] if tok_md else []),
        CALIBRATION_HEAD, "", cal_md, readme.end])


#: The README blocks make sts writes (each in the first file of ``--readme`` that holds its markers).
BLOCKS = ("sts", "findings-sts", "sources")


def fill_blocks(blocks: dict, prov: dict, main_md: str, cal_md: str, ind_md: str, tok_md: str) -> None:
    """Every block of :data:`BLOCKS` (opened, so checked, before anything was written) from ``prov``."""
    blocks["sts"].fill(readme_sts_block(blocks["sts"], prov, main_md, cal_md, ind_md, tok_md))
    blocks["findings-sts"].fill(findings_block(prov))
    blocks["sources"].fill(stsdefault.sources_block(prov))
