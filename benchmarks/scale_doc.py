"""Write docs/SCALE.md from the scale benchmarks' results: a full English dump, projected.

    python -m benchmarks.scale_doc [--results benchmarks/results] [--out docs/SCALE.md] [--dump-gb 20]

Reads ``scale.json`` (:mod:`bench_scale`, required), the ``rates-<N>cpu.json`` of the box with
the most cores (:mod:`bench_rates`), ``fit-scale-gpu.json``, ``fit-scale-cpu.json`` and ``fit-scale-cpu-quadratic.json``
(:mod:`bench_fit_scale`) where present, ``scoring-scale-cpu.json`` and ``scoring-scale-gpu.json``
(:mod:`bench_scoring`: every row of Table 1 at the paper's vocabulary) where present, and
``extract.json`` (gensim's real dump excerpt: XML bytes and tokens). Every number of the page comes from those files or from the paper's sizes
below; ``make scale``, ``make scale-scoring`` and ``make scale-gpu`` rewrite it.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from repro.io.store import write_text

HERE = os.path.dirname(os.path.abspath(__file__))

# the paper's sizes (section 4.1) and the projection's target box
PAPER = {"related": 4_900_000, "train_couples": 3_000_000, "scored_couples": 6_800_000, "vocabulary": 2_200_000,
         "dim": 400, "settings": 2, "score_columns": 3}
BOX_CORES = 16
VALIDATION_SHARE = 0.5  # of the scored couples, the validation split's (the peers' selection scores it)

MEMORY_GB = 24
SHORTEN = {
    "extraction": "more cores: the multistream workers scale on (see the sweep below)",
    "word2vec": "more cores (gensim's threads scale sub-linearly: see the rates), or word2vec on a sample of the "
                "paragraphs: the vectors need far fewer than 4 billion tokens, and df and the couples still read all",
    "df": "more cores (the counting workers)",
    "couples": "the two settings in parallel (two processes; each reads only its prefix)",
    "training": "several GPUs: the kappa search splits its 50 runs over every device JAX sees (docs/GPU.md), "
                "or fewer kappas in the grid",
    "scoring": "scoring the three columns in parallel processes, or the baselines on the GPU (they run on the CPU "
               "in one process)",
}


def _load(path: str) -> dict | None:
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def _hms(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _mb(x: float) -> str:
    return f"{x / 1024:.2f} GB" if x >= 1024 else f"{x:.0f} MB"


def _rates(results: str) -> tuple[dict, str]:
    """The rates file of the box with the most cores, and where it was measured."""
    best = None
    for path in glob.glob(os.path.join(results, "rates-*cpu.json")):
        r = _load(path)
        if best is None or r["cpus"] > best["cpus"]:
            best = r
    if best is None:
        raise SystemExit(f"error: {results}: no rates-*cpu.json (run make scale)")
    return best, f"{best['cpus']} cores ({best.get('cpu', '?')}), {best['copies']}x synthetic dump, commit {best['commit'][:7]}"


def marginal(before: dict, big: dict, stage: str, count: str) -> float:
    """Bytes of peak RSS per unit of ``count`` between two sizes' runs."""
    d_mb = big["stages"][stage]["max_process_rss_mb"] - before["stages"][stage]["max_process_rss_mb"]
    return d_mb * 2 ** 20 / max(1, big["counts"][count] - before["counts"][count])


def seconds_line(scale: dict, stage: str, count: str) -> tuple[float, float]:
    """Least-squares seconds = a + b x ``count`` of ``stage`` through every size: (a, b); a at least 0."""
    import numpy as np

    runs = scale["runs"].values()
    b, a = np.polyfit([r["counts"][count] for r in runs], [r["stages"][stage]["seconds"] for r in runs], 1)
    return max(float(a), 0.0), float(b)


def projection(scale: dict, rates: dict, where: str, gpu: dict | None, extract: dict | None, dump_gb: float,
               scoring: dict | None = None) -> dict:
    """Projected seconds per stage for the full dump on BOX_CORES cores and one GPU, with sources."""
    factor = BOX_CORES / rates["cpus"] if rates["cpus"] < BOX_CORES else 1.0
    scaled = "" if factor == 1 else f", scaled linearly from {rates['cpus']} to {BOX_CORES} cores (an assumption)"
    top = str(max(int(k) for k in rates["extraction"]))
    w2v_top = str(max(int(k) for k in rates["word2vec"]))
    if extract:  # gensim's excerpt of the real dump: real wikitext
        comp = extract.get("compressed_bytes") or (os.path.getsize(extract["dump"]) if os.path.isfile(extract["dump"]) else None)
        ratio = extract["xml_mb"] * 1e6 / comp if comp else None
        tokens_per_byte = extract["ours"]["tokens"] / (extract["xml_mb"] * 1e6)
        text_source = "gensim's excerpt of a real dump (benchmarks/results/extract.json)"
    else:
        ratio, tokens_per_byte, text_source = None, rates["tokens"] / rates["xml_bytes"], "the synthetic dump"
    ratio = ratio or rates["xml_bytes"] / rates["compressed_bytes"]
    xml = dump_gb * 1e9 * ratio
    tokens = xml * tokens_per_byte
    big = scale["runs"][f"{scale['sizes'][-1]}x"]
    counts, stages = big["counts"], big["stages"]
    lines = []

    def add(stage, work, rate, source, seconds):
        lines.append({"stage": stage, "work": work, "rate": rate, "source": source, "seconds": seconds})

    mbps = rates["extraction"][top]["xml_mb_per_s"] * factor
    add("extraction", f"{xml / 1e9:.0f} GB of XML", f"{mbps:.1f} MB/s ({top} workers)", where + scaled, xml / 1e6 / mbps)
    tps = rates["word2vec"][w2v_top]["tokens_per_s"] * factor
    add("word2vec", f"{tokens / 1e9:.2f}G tokens, 1 epoch", f"{tps / 1e3:.0f}k tokens/s ({w2v_top} threads)",
        where + scaled, tokens / tps)
    dps = rates["docfreq"]["tokens_per_s"] * factor
    add("df", f"{tokens / 1e9:.2f}G tokens", f"{dps / 1e6:.2f}M tokens/s ({rates['docfreq']['workers']} workers)",
        where + scaled, tokens / dps)
    per_related = rates["couples"]["tokens_per_related"]
    read = min(tokens, PAPER["related"] * per_related)
    cps = rates["couples"]["tokens_per_s"]
    add("couples", f"{PAPER['settings']} settings x {PAPER['related'] / 1e6:.1f}M related (MAX_RELATED): "
        f"{read / 1e6:.0f}M tokens each ({per_related:.1f} per couple)", f"{cps / 1e6:.2f}M tokens/s (one process)",
        where, PAPER["settings"] * read / cps)
    if gpu:
        e_search, e_final, e_con = counts["search_epochs_max"], counts["final_epochs"], counts["contrastive_epochs"]
        e1 = str(gpu["epochs"][0])
        search = gpu["search_s"][e1] + (e_search - int(e1)) * gpu["search_epoch_s"]
        # two runs (median, contrastive), each its first epochs as timed (compile included), then the rate
        final = 2 * gpu["final_s"][e1] + (e_final + e_con - 2 * int(e1)) * gpu["final_epoch_s"]
        add("training", f"{PAPER['settings']} settings: the {gpu['kappa_runs']}-run kappa search ({e_search} epochs) and "
            f"the median ({e_final}) and contrastive ({e_con}) runs on {gpu['couples'] / 1e6:.0f}M couples "
            f"({gpu['form']})", f"{gpu['search_epoch_s']:.2f} s per search epoch, {gpu['final_epoch_s']:.2f} s per run epoch",
            f"{gpu.get('accelerator', gpu['backend'])}, commit {gpu['commit'][:7]}; epochs: the {scale['sizes'][-1]}x run",
            PAPER["settings"] * (gpu["prepare_s"] + search + final))
    if scoring:
        per_row = scoring_projection(scoring)
        column = sum(per_row.values())
        add("scoring", f"{PAPER['score_columns']} columns x {PAPER['scored_couples'] / 1e6:.1f}M couples x "
            f"{len(per_row)} rows at a {scoring['vocab'] / 1e6:.1f}M x {scoring['dim']} table",
            f"{PAPER['scored_couples'] * len(per_row) / column:,.0f} couples/s per row on average",
            f"{scoring['cpus']} cores ({scoring.get('cpu', '?')}), commit {scoring['commit'][:7]}; the rows spread over "
            f"{BOX_CORES} processes, each at this box's rates (below)", PAPER["score_columns"] * column / BOX_CORES)
    else:
        fixed, per = seconds_line(scale, "scoring", "scored_couples")
        add("scoring", f"{PAPER['score_columns']} columns x {PAPER['scored_couples'] / 1e6:.1f}M couples",
            f"{1 / per:.0f} couples/s after {fixed:.0f} s", f"this box ({scale['cpus']} cores), the line through "
            f"{', '.join(f'{k}x' for k in scale['sizes'])}: an upper bound",
            PAPER["score_columns"] * (fixed + PAPER["scored_couples"] * per))
    return {"xml_bytes": xml, "tokens": tokens, "ratio": ratio, "tokens_per_byte": tokens_per_byte,
            "text_source": text_source, "lines": lines}


def _head(scale: dict, gpu: dict | None, proj: dict, dump_gb: float) -> list[str]:
    """The title, the projected wall time per stage and the stage that bounds it."""
    sizes = [f"{k}x" for k in scale["sizes"]]
    total = sum(x["seconds"] for x in proj["lines"])
    bound = max(proj["lines"], key=lambda x: x["seconds"])
    out = ["# Paper scale: a full English dump on one box", "",
           "<!-- written by benchmarks/scale_doc.py (make scale, make scale-scoring, make scale-gpu): do not edit by hand -->", "",
           "The paper trained on a whole English Wikipedia dump: 4.9M related couples per setting, 1.5M + 1.5M "
           "for training, a 2.2M-word vocabulary. No whole dump can be had here, so every stage was measured on "
           f"synthetic dumps made from the default corpus's real pages at {', '.join(sizes)} (`make scale`), "
           "the CPU stages' rates on a 16-core box and the kappa search at the paper's size on a GPU "
           "(`make scale-gpu`), and the full run is projected from those rates.", "",
           "## Projected wall time: a full English dump, 16 cores and one GPU", "",
           f"The dump: {dump_gb:g} GB of bz2, {proj['ratio']:.2f} times as much XML and {proj['tokens_per_byte']:.4f} "
           f"tokens per byte of XML, as in {proj['text_source']}: {proj['xml_bytes'] / 1e9:.0f} GB of XML and "
           f"{proj['tokens'] / 1e9:.2f} billion tokens. The recipe is docs/GPU.md's, with "
           "`W2V_EPOCHS=1 W2V_WORKERS=16 MAX_RELATED=4900000 TRAIN_FORM=quadratic`.", "",
           "| stage | work | rate | measured on | projected |", "|---|---|---|---|---:|"]
    for x in proj["lines"]:
        out.append(f"| {x['stage']} | {x['work']} | {x['rate']} | {x['source']} | {_hms(x['seconds'])} |")
    out += [f"| **total** | | | | **{_hms(total)}** |", "",
            f"**{bound['stage']}** bounds the total ({100 * bound['seconds'] / total:.0f}%). What would shorten it: "
            f"{SHORTEN.get(bound['stage'], '')}.", ""]
    if not gpu:
        out += ["The kappa search and training were not measured on a GPU (no `fit-scale-gpu.json`): "
                "run `make scale-gpu` on a GPU box.", ""]
    return out


def _memory(scale: dict) -> list[str]:
    """Peak memory per stage and size, the streaming check and the projection of the growing stages."""
    a = scale["analysis"]
    sizes = [f"{k}x" for k in scale["sizes"]]
    out = ["## Memory: every stage at each size", "",
            f"Peak resident memory of the largest process (and wall time) per stage on this box ({scale['cpus']} "
            f"cores, {scale.get('cpu', '?')}), commit {scale['commit'][:7]}; word2vec with {scale['w2v_workers']} "
            "threads and 1 epoch, the wikivar setting (width 30) for the couples, training and scoring.", "",
            "| stage | " + " | ".join(sizes) + " | growth " + " | growth ".join(sizes[1:]) + " |",
            "|---|" + "---:|" * (2 * len(sizes) - 1)]
    for name in scale["runs"][sizes[0]]["stages"]:
        cells = []
        for s in sizes:
            st = scale["runs"][s]["stages"].get(name)
            cells.append(f"{_mb(st['max_process_rss_mb'])}, {st['seconds']:.1f} s" if st else "-")
        growth = [f"{a['growth'][name].get(s, '-')}" for s in sizes[1:]]
        out.append(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(growth) + " |")
    rows = ["couples", "train_couples", "scored_couples", "vocabulary", "tokens"]
    out += ["", "| size | " + " | ".join(rows) + " |", "|---|" + "---:|" * len(rows)]
    for s in sizes:
        c = scale["runs"][s]["counts"]
        out.append(f"| {s} | " + " | ".join(f"{c[r]:,}" for r in rows) + " |")
    ok = "met" if a["streaming_ok"] else "NOT met"
    out += ["", f"**Streaming stages** (peak RSS at 10x over 1x, target at most 1.5): "
            + ", ".join(f"{k} {v}" for k, v in a["streaming_10x_growth"].items()) + f": {ok}.", ""]
    out += ["**Stages whose state grows with their couples**: bytes per couple between the two largest sizes "
            "(where every fixed cost, a chunk of 8,192 encoded texts say, is already paid: a line through all "
            "sizes would charge those to the couples), and the peak that gives at the paper's size, from the "
            "largest size's. The embedding table grows with the vocabulary on top of it: "
            f"{PAPER['vocabulary'] / 1e6:.1f}M words x {PAPER['dim']} floats = "
            f"{PAPER['vocabulary'] * PAPER['dim'] * 4 / 2 ** 30:.1f} GB per copy, counted twice (the host's and "
            "the JAX array).", "",
            "| stage | bytes per couple | peak at the largest size | couples at the paper's size | projected peak |",
            "|---|---:|---:|---:|---:|"]
    table_mb = 2 * PAPER["vocabulary"] * PAPER["dim"] * 4 / 2 ** 20
    paper_n = {"couples": 2 * PAPER["related"], "train_couples": PAPER["train_couples"],
               "scored_couples": PAPER["scored_couples"]}
    big, before = scale["runs"][sizes[-1]], scale["runs"][sizes[-2]]
    for name, fit in a["per_couple"].items():
        key, n = fit["of"], paper_n[fit["of"]]
        per = marginal(before, big, name, key)
        top = big["stages"][name]["max_process_rss_mb"]
        peak = top + per * (n - big["counts"][key]) / 2 ** 20 + (table_mb if name != "couples" else 0)
        flag = "" if peak <= MEMORY_GB * 1024 else f" (over {MEMORY_GB} GB)"
        label = f"{name} (quadratic form)" if name in ("kappa_search", "contrastive") else name
        out.append(f"| {label} | {per:,.0f} per {key} | {_mb(top)} | {n / 1e6:.1f}M | {_mb(peak)}{flag} |")
    for name in a["per_word"]:
        per = marginal(before, big, name, "vocabulary")
        top = big["stages"][name]["max_process_rss_mb"]
        peak = top + per * (PAPER["vocabulary"] - big["counts"]["vocabulary"]) / 2 ** 20
        out.append(f"| {name} | {per:,.0f} per vocabulary word | {_mb(top)} | {PAPER['vocabulary'] / 1e6:.1f}M words | "
                   f"{_mb(peak)} |")
    out += ["", "The training rows are the quadratic form's, the form `auto` takes at every size here; at the "
            "paper's size `auto` takes the gather form, and the quadratic form is `TRAIN_FORM=quadratic`: both "
            "are measured at that size below.", "",
            f"word2vec's own arrays at the paper's vocabulary: input and output vectors, 2 x "
            f"{PAPER['vocabulary'] / 1e6:.1f}M x {PAPER['dim']} float32 = "
            f"{2 * PAPER['vocabulary'] * PAPER['dim'] * 4 / 2 ** 30:.1f} GB, plus gensim's raw count of every distinct "
            "word before the min_count cut (Heaps' law puts a whole dump's at tens of millions).", ""]
    return out


def _training(gpu: dict | None, cpu_fits: list[dict]) -> list[str]:
    """The paper's training size, measured on the CPU path and on the GPU."""
    out = []
    for fit in cpu_fits:
        if fit.get("failed") is not None:
            why = "killed, for memory" if fit.get("killed") else f"failed with exit code {fit['failed']}"
            out += [f"**The paper's training size on the CPU path with `--form {fit['form_asked']}`**: "
                    f"{fit['couples'] / 1e6:.0f}M training couples ({fit['quad_bytes'] / 1e9:.1f} GB as the quadratic "
                    f"form) and a {fit['vocab'] / 1e6:.1f}M x {fit['dim']} table: {why} on this {fit['memory_gb']:g} GB "
                    f"box ({fit.get('cpu', '?')}, commit {fit['commit'][:7]}). Keep `TRAIN_FORM=auto` (the gather form) "
                    "on such a box; the quadratic form is for a GPU, or a CPU box with more memory.", ""]
            continue
        out += [f"**The paper's training size on the CPU path, measured** (`--form {fit['form_asked']}`): "
                f"{fit['couples'] / 1e6:.0f}M training couples and a {fit['vocab'] / 1e6:.1f}M x {fit['dim']} table, "
                f"`prepare` ({fit['form']}; the quadratic form takes {fit['quad_bytes'] / 1e9:.1f} GB, over the "
                f"{fit['gram_budget'] / 1e9:.0f} GB that `auto` allows it) and the kappa search ({len(fit['grid'])} kappa "
                f"x 5 folds, {fit['epochs'][-1]} epoch: memory, not time) and a final run: host peak "
                f"{_mb(fit['host_peak_mb']['end'])} ({'within' if fit['host_peak_mb']['end'] <= MEMORY_GB * 1024 else 'over'} "
                f"{MEMORY_GB} GB), on {fit.get('cpu', '?')} (commit {fit['commit'][:7]}).", ""]
    if gpu:
        out += [f"**The same on the GPU** ({gpu.get('accelerator', gpu['backend'])}): {gpu['couples'] / 1e6:.0f}M couples "
                f"as the {gpu['form']} ({gpu['quad_bytes'] / 1e9:.1f} GB), the {gpu['kappa_runs']}-run search in one call: "
                f"device peak {_mb(gpu['device_peak_mb'])}, host peak {_mb(gpu['host_peak_mb']['end'])}.", ""]
    return out


def _extraction(scale: dict, rates: dict, where: str) -> list[str]:
    """The parallel extraction's speed-up here and the rates by workers on the rates box."""
    a = scale["analysis"]
    out = ["## Parallel extraction of a multistream dump", "",
            f"Workers against one on this box ({scale['cpus']} cores): "
            + ", ".join(f"{k} {v}x" for k, v in a["extraction_speedup"].items()) + " (target at 10x: at least 1.7x).", ""]
    if len(rates["extraction"]) > 1:
        out += [f"On {where}: " + ", ".join(f"{k} workers {v['xml_mb_per_s']} MB/s" for k, v in
                                            sorted(rates["extraction"].items(), key=lambda kv: int(kv[0]))) + ".", ""]
    return out


def _dumps(scale: dict) -> list[str]:
    """How the synthetic dumps are made and their sizes."""
    sizes = [f"{k}x" for k in scale["sizes"]]
    out = ["## The synthetic dumps", "",
            "`benchmarks/synthdump.py`: the default corpus's pages (gensim's excerpt and the ovos leads) repeated with "
            "distinct titles and ids, written as a multistream dump with its index. The vocabulary grows by Heaps' "
            "law, V(N) = V1 (N/N1)^beta, with beta fitted on the default corpus's own prefixes: copy c renames "
            "V1 ((c+1)^beta - c^beta) of the corpus's rare words (at most 3 occurrences) with a suffix of its own.", "",
            "| size | MB of bz2 | beta | Heaps' law | distinct words by the rule | distinct words extracted | "
            "word2vec vocabulary (5+ occurrences) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for s in sizes:
        d, c = scale["dumps"][s], scale["runs"][s]["counts"]
        out.append(f"| {s} | {d['compressed_bytes'] / 1e6:.1f} | {d['heaps_beta']} | {d['words_heaps']:,} | "
                   f"{d['words_expected']:,} | {c.get('distinct_words', 0):,} | {c['vocabulary']:,} |")
    return out


def _provenance(scale: dict, rates: dict, where: str, gpu: dict | None, cpu_fits: list[dict]) -> list[str]:
    """Where and at which commit each results file was measured."""
    out = ["## Provenance", "",
            f"- `scale.json`: commit {scale['commit']}, {scale['cpus']} cores ({scale.get('cpu', '?')}), Python "
            f"{scale['python']}, seed {scale['seed']}, {scale['minutes']} minutes.",
            f"- rates: {where}, Python {rates['python']}."]
    if gpu:
        out.append(f"- GPU: {gpu.get('accelerator')}, JAX {gpu['jax']}, commit {gpu['commit']}.")
    for fit in cpu_fits:
        out.append(f"- CPU training size ({fit['form_asked']}): {fit.get('cpu')}, JAX {fit.get('jax', '-')}, "
                   f"commit {fit['commit']}.")
    return out


def scoring_projection(scoring: dict) -> dict:
    """Seconds per row of one column at the paper's size: its measured stages, and its couples at
    its measured rate (:func:`benchmarks.scoring_scale.projection`)."""
    from benchmarks.scoring_scale import projection as rows_projection

    return rows_projection(scoring["rows"], PAPER["scored_couples"], VALIDATION_SHARE)


def _bottleneck(rows: dict, per_row: dict) -> str:
    """The slowest row, the passes over the couples that make it so, and the row of the largest peak."""
    slowest = max(per_row, key=per_row.get)
    r, fastest = rows[slowest], max(rows, key=lambda m: rows[m]["couples_per_s"] / rows[m]["scorings"])
    rate = r["couples_per_s"] / r["scorings"]
    passes = r["scorings"] + VALIDATION_SHARE * r["grid_weightings"]
    big = max(rows, key=lambda m: rows[m]["peak_rss_mb"])
    return (f"The slowest row is **{slowest}** ({_hms(per_row[slowest])} a column, {100 * per_row[slowest] / sum(per_row.values()):.0f}%): "
            f"{rate:,.0f} couples/s under one encoding ({fastest}: {rows[fastest]['couples_per_s'] / rows[fastest]['scorings']:,.0f}), "
            f"and {passes:g} passes over a column's couples (the validation half under each of its grid's "
            f"{r['grid_weightings']} weightings, every couple in each of its {r['scorings']} passes, one per word weighting its choices hold). The largest "
            f"peak is **{big}**'s, {_mb(rows[big]['peak_rss_mb'])}.")


def _scoring(scoring: dict | None, gpu_scoring: dict | None) -> list[str]:
    """Every row of Table 1 scored at the paper's vocabulary: stages, rates, peak memory."""
    if not scoring:
        return ["## Scoring at the paper's vocabulary", "", "Not measured: run `make scale-scoring`.", ""]
    per_row = scoring_projection(scoring)
    column = sum(per_row.values())
    peak = max(scoring["rows"].values(), key=lambda r: r["peak_rss_mb"])
    out = ["## Scoring at the paper's vocabulary", "",
           f"`make scale-scoring` (`benchmarks/bench_scoring.py`): every row of Table 1 scored as `experiments.score` "
           f"scores it, through `repro.evaluate.scoring.couple_scores` (the peers chosen by `repro.evaluate.peers.select`), at a "
           f"synthetic {scoring['vocab']:,} x {scoring['dim']} float32 table ({scoring['table_gb']} GB, memory-mapped), "
           f"each row in a fresh process on {scoring['couples']:,} couples ({scoring['couples_shape']}: a subset of the "
           f"paper's {PAPER['scored_couples'] / 1e6:.1f}M per column, the rate then projected) and a peer's selection on "
           f"{scoring['validation_couples']:,} validation couples; {scoring['cpus']} cores ({scoring.get('cpu', '?')}), "
           f"backend {scoring['backend']}, commit {scoring['commit'][:7]}"
           + (f", load average {scoring['load_average'][0]:.1f} then {scoring['load_average'][1]:.1f}" if "load_average" in scoring else "")
           + ". Stages: the table's checks, its copy to "
           "the JAX device (the rows JAX computes), a peer's setup (weights, whitening, common components, the "
           "validation couples under its grid), the first chunk (compile), then the rate.", "",
           "| row | table checks | device copy | setup | first chunk | couples/s | peak RSS | one column at the "
           "paper's size |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m, r in scoring["rows"].items():
        note = f" (projected from {r['projected_from'][0]:,} and {r['projected_from'][1]:,} words)" if r.get(
            "projected_from") else ""
        out.append(f"| {m}{note} | {r['table_s']:.1f} s | {r['device_s']:.1f} s | {r['setup_s']:.1f} s | "
                   f"{r['warmup_s']:.1f} s | {r['couples_per_s'] / r['scorings']:,.0f} | {_mb(r['peak_rss_mb'])} | "
                   f"{_hms(per_row[m])} |")
    out += [f"| **one column** | | | | | | **{_mb(peak['peak_rss_mb'])}** | **{_hms(column)}** |", "",
            f"One column, its rows one after another in one process as `experiments.score` runs them: "
            f"{_hms(column)}; the three columns in three processes at once: {_hms(column)} and 3 x its memory; "
            f"every row of the three columns spread over {BOX_CORES} processes (each row is independent, the table "
            f"memory-mapped once): {_hms(PAPER['score_columns'] * column / BOX_CORES)}, against the target of 15 "
            f"min on 16 cores. {_bottleneck(scoring['rows'], per_row)}", ""]
    if gpu_scoring:
        g = scoring_projection(gpu_scoring)
        out += [f"On the GPU ({gpu_scoring.get('jax_devices', ['?'])[0]}, commit {gpu_scoring['commit'][:7]}): one "
                f"column {_hms(sum(g.values()))}, three {_hms(3 * sum(g.values()))} (target: 5 min).", ""]
    else:
        out += ["On a GPU: not measured yet (no `scoring-scale-gpu.json`): `make scale-gpu` on a GPU box runs the "
                "same measurement there.", ""]
    return out


def render(scale: dict, rates: dict, where: str, gpu: dict | None, cpu_fits: list[dict], proj: dict, dump_gb: float,
           scoring: tuple = (None, None)) -> str:
    """docs/SCALE.md: its sections in order."""
    out = (_head(scale, gpu, proj, dump_gb) + _memory(scale) + _training(gpu, cpu_fits) + _scoring(*scoring)
           + _extraction(scale, rates, where) + _dumps(scale) + [""] + _provenance(scale, rates, where, gpu, cpu_fits))
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "docs", "SCALE.md"))
    ap.add_argument("--dump-gb", type=float, default=20.0, help="compressed size of the dump to project (GB)")
    args = ap.parse_args(argv)
    scale = _load(os.path.join(args.results, "scale.json"))
    if scale is None:
        raise SystemExit(f"error: {args.results}/scale.json: missing (run make scale)")
    rates, where = _rates(args.results)
    gpu = _load(os.path.join(args.results, "fit-scale-gpu.json"))
    cpu_fits = [f for f in (_load(os.path.join(args.results, n)) for n in ("fit-scale-cpu.json",
                                                                          "fit-scale-cpu-quadratic.json")) if f]
    extract = _load(os.path.join(args.results, "extract.json"))
    scoring = tuple(_load(os.path.join(args.results, f"scoring-scale-{b}.json")) for b in ("cpu", "gpu"))
    proj = projection(scale, rates, where, gpu, extract, args.dump_gb, scoring[0])
    write_text(args.out, render(scale, rates, where, gpu, cpu_fits, proj, args.dump_gb, scoring))
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
