"""Tables 1 and 2 over several seeds (issue 46, not in the paper): ``results/seeds_table<N>.{md,json}``,
the README's results at a glance and docs/RESULTS.md's seed-aware findings.

    python -m experiments.seedtables --data data --seeds 0,1,2,3,4 --results results [--readme README.md ...]

Seed 0's score files are ``<data>/scores``; seed s's ``<data>/seeds/<s>/scores`` (make seeds). Every
seed is scored on the same test couples. Per column and metric: each row's split error and JS as
mean, standard deviation and min-max over the seeds; the verdicts of
:func:`repro.evaluate.seedrows.verdict` (both the test couples and the seeds counted); how often each
per-seed choice was made (the learned family's member, the peers' best configuration, both on that
seed's validation couples); the family's members with their spread, unstable ones flagged.

The verdicts printed are checked against the check sets under ``<results>/checks/`` (other seeds,
another BLAS kernel or machine; :func:`experiments.seedcompare.check_sets`): a claim that any set
reads with another word prints "depends on the seed", each set's word beside it. The tables'
Markdown, the findings and the glance are rendered from the seed tables' JSON, so a new check set
re-renders them without the score files (``--tables ''``).
"""

from __future__ import annotations

import argparse
import os
import sys

from experiments import familytable, figures, seedcompare, tokenrows
from repro import settings
from repro.errors import InputError, run
from repro.evaluate import family, report, seedrows
from repro.io.layout import Layout
from repro.io.provenance import git_commit, hardware, versions
from repro.io.readmeblock import ReadmeBlock, readme_markers, short_commit
from repro.io.store import read_json, write_json, write_text
from repro.pins import state as kernel_state

CLAIMS = seedrows.CLAIMS
CLAIM_TITLES = {
    "paper": "The paper's weights (median loss) against the paper's best baseline",
    "peers": "Our best (the learned family, chosen on validation) against the peers' best configuration (chosen on validation)",
    "paper_vs_peers": "The paper's weights (median loss) against the peers' best configuration (chosen on validation)",
    "wordllama": "Weights learned on WordLlama's token space against WordLlama's own pooling",
    "encoder": "The `Encoder`'s shipped default (`Encoder.pretrained()`) against WordLlama's own pooling",
}
METRIC_SHORT = {"euclidean": "Euclidean", "cosine": "cosine"}
#: The glance's column labels of the claims (the legend under the table gives each one's title).
CLAIM_LABELS = {"paper": "Paper's weights vs best baseline", "peers": "Our best vs peers' best",
                "wordllama": "Learned on WordLlama vs its pooling", "encoder": "Default `Encoder` vs WordLlama"}


def seed_folder(data: str, seed: int) -> str:
    """Where make seeds leaves seed ``seed``'s run: ``data`` for seed 0, else ``data/seeds/<seed>``."""
    return data if seed == 0 else os.path.join(data, "seeds", str(seed))


def load(data: str, seeds: list, table: int) -> tuple[dict, dict]:
    """({seed: {column: score arrays}}, {seed: {column: score JSON}}) of table ``table``'s columns."""
    cols = settings.TABLE_SETTINGS[table]
    names = list(dict.fromkeys([f"{m}@{metric}" for m in settings.METHODS for metric in settings.TABLE_METRICS]
                               + familytable.load_names()))
    files, meta = {}, {}
    for s in seeds:
        layout = Layout(seed_folder(data, s))
        missing = [c for c in cols if not os.path.exists(layout.scores(c))]
        if missing:
            raise InputError(layout.scores(missing[0]), f"seed {s} has no score file (run make seeds)")
        files[s], meta[s] = tokenrows.columns(layout, cols, names)
    return files, meta


def evaluate(files: dict, meta: dict, seeds: list, table: int) -> dict:
    """Everything the seed tables print, per metric and column (see the module)."""
    out = {"results": {}, "verdicts": {}, "choices": {}, "members": {}, "rankable": {}}
    rows = settings.METHODS + familytable.NAMES
    for metric in settings.TABLE_METRICS:
        for c in settings.TABLE_SETTINGS[table]:
            col = seedrows.column([report.table_scores(files[s][c], metric, rows) for s in seeds], seeds, rows)
            summary = seedrows.rows(col)
            out["results"].setdefault(metric, {})[c] = {m: summary[m] for m in settings.METHODS}
            out["rankable"].setdefault(metric, {})[c] = seedrows.rankable(col)
            baseline = min(settings.BASELINES, key=lambda m: (summary[m]["split_error"]["mean"], settings.BASELINES.index(m)))
            claims = {}
            for name, ours, against in CLAIMS:
                b = baseline if against == "paper_baseline" else against
                claims[name] = dict(seedrows.verdict(col, ours, b), row=ours, against=b)
            best = min(settings.METHODS, key=lambda m: (summary[m]["split_error"]["mean"], settings.METHODS.index(m)))
            claims["best_row"] = {"row": best, "others": {m: seedrows.verdict(col, m, best)["word"]
                                                          for m in settings.METHODS if m != best}}
            out["verdicts"].setdefault(metric, {})[c] = claims
            fam = [meta[s][c]["family"]["chosen"][metric]["member"] for s in seeds]
            peer = [((meta[s][c].get("peers") or {}).get("peer_best") or {}).get(metric, {}).get("label") for s in seeds]
            out["choices"].setdefault(metric, {})[c] = {"family": seedrows.counts(fam), "peers": seedrows.counts(peer)}
            out["members"].setdefault(metric, {})[c] = {
                key: dict(summary[settings.family_method(key)]["split_error"],
                          unstable=seedrows.unstable(col.errors[settings.family_method(key)]))
                for key in family.keys()}
    return out


def _title(c: str) -> str:
    return settings.SETTINGS[c].title


def _cell(sp: dict, percent: bool = True) -> str:
    """``mean ± sd (min–max)`` of a spread, in percent for split errors."""
    k = 100 if percent else 1
    d = 2 if percent else 4
    return f"{k * sp['mean']:.{d}f} ± {k * sp['sd']:.{d}f} ({k * sp['min']:.{d}f}–{k * sp['max']:.{d}f})"


def _claim_cell(ev: dict, checks: list, metric: str, c: str, name: str) -> str:
    """A claim's cell over the published seeds (``ev``, a seed table's JSON) and the check sets
    (:func:`experiments.seedcompare.across_cell`)."""
    return seedcompare.across_cell(ev["verdicts"][metric][c][name], _others(ev, checks, metric, c, name),
                                   seedcompare.seeds_label(ev["seeds"]))


def _others(ev: dict, checks: list, metric: str, c: str, name: str) -> list:
    """[(label, the claim in each check set or None)] (``checks``: [(name, JSON)]) beside the
    published set ``ev``."""
    return [(seedcompare.short_label(p, ev), seedcompare.claim_of(p, metric, c, name)) for _, p in checks]


def checks_lines(table: int, ev: dict, seeds: list, checks: list) -> list[str]:
    """One line per check set: its provenance and how many of the published verdicts it reads
    the same, those that differ named."""
    out = []
    for folder, p in checks:
        rows = seedcompare.between_sets(ev, p)  # the claims of CLAIMS only
        differ = [f"{_title(c)}, {METRIC_SHORT[m]}, {name}: {wb} ({100 * db:+.2f}) there, {wa} ({100 * da:+.2f}) here"
                  for m, c, name, wa, wb, da, db in rows if wa != wb]
        out.append(f"- {seedcompare.set_label(p)} (`{seedcompare.CHECKS}/{folder}/seeds_table{table}.json`): "
                   f"{len(rows) - len(differ)} of {len(rows)} verdicts read the same"
                   + (f"; differ: {'; '.join(differ)}." if differ else "."))
    return out


def markdown(table: int, ev: dict, seeds: list, checks: list = ()) -> str:
    """results/seeds_table<N>.md: per metric the rows' split error and JS over the seeds, the
    verdicts (over the check sets too: ``checks``, [(name, JSON)]), the choices and the family's
    members."""
    cols = settings.TABLE_SETTINGS[table]
    lines = [f"Table {table} over {len(seeds)} seeds ({', '.join(map(str, seeds))}), every seed on the same test "
             "couples: each cell the mean over the seeds ± their standard deviation (min–max). Split errors in %.", ""]
    for metric in settings.TABLE_METRICS:
        res = ev["results"][metric]
        lines += [f"**Scored by {'minus the Euclidean distance (tf-idf by the cosine)' if metric == 'euclidean' else 'the cosine'}:**", "",
                  "| Method | " + " | ".join(f"{_title(c)}: split error | JS" for c in cols) + " |",
                  "|---|" + "---:|---:|" * len(cols)]
        for m in settings.METHODS:
            lines.append(f"| {settings.LABELS[m]} | " + " | ".join(
                f"{_cell(res[c][m]['split_error'])} | {_cell(res[c][m]['js'], False)}" for c in cols) + " |")
        lines += ["", "Verdicts over the seeds (the seed-mean difference of split error in points; "
                  "docs/REPRODUCIBILITY.md, \"Verdicts over seeds\"):", "",
                  "| Comparison | " + " | ".join(_title(c) for c in cols) + " |", "|---|" + "---|" * len(cols)]
        for name, _, _ in CLAIMS:
            lines.append(f"| {CLAIM_TITLES[name]} | " + " | ".join(
                _claim_cell(dict(ev, seeds=seeds), checks, metric, c, name) for c in cols) + " |")
        lines += ["", "Chosen on each seed's validation couples: " + "; ".join(
            f"{_title(c)}: learned family " + ", ".join(f"{k} in {n} of {len(seeds)}" for k, n in ch["family"])
            + "; peers " + ", ".join(f"{k} in {n} of {len(seeds)}" for k, n in ch["peers"])
            for c, ch in ev["choices"][metric].items()) + ".", ""]
        lines += ["The learned family's members, test split error (%) over the seeds; ⚠ unstable: a spread "
                  f"(max − min) above {100 * seedrows.UNSTABLE_RANGE:g} points:", "",
                  "| Member | " + " | ".join(_title(c) for c in cols) + " |", "|---|" + "---:|" * len(cols)]
        for key in family.keys():
            cells = []
            for c in cols:
                mem = ev["members"][metric][c][key]
                cells.append(_cell(mem) + (" ⚠" if mem["unstable"] else ""))
            lines.append(f"| {family.member(key).label} | " + " | ".join(cells) + " |")
        lines.append("")
    if checks:
        lines += ["The verdicts against the check sets (a claim that one of them reads with another word reads "
                  "\"depends on the seed\" above; docs/REPRODUCIBILITY.md, \"Check sets\"):", ""]
        lines += checks_lines(table, ev, seeds, checks) + [""]
    return "\n".join(lines)


def findings(table: int, ev: dict, seeds: list, checks: list = ()) -> str:
    """The seed-aware verdicts in sentences, one line per column and metric (docs/RESULTS.md); a
    claim that a check set (``checks``) reads with another word "depends on the seed"."""
    lines = []
    for metric in settings.TABLE_METRICS:
        for c in settings.TABLE_SETTINGS[table]:
            v = ev["verdicts"][metric][c]
            res = ev["results"][metric][c]
            best = v["best_row"]["row"]
            head = f"- **{_title(c)}, {METRIC_SHORT[metric]}:** "
            if not ev["rankable"][metric][c]:
                text = (f"lowest mean split error {settings.LABELS[best]} ({100 * res[best]['split_error']['mean']:.2f}%); "
                        "too few independent clusters to rank. ")
            else:
                level = [settings.LABELS[m] for m, w in v["best_row"]["others"].items() if w != "worse"]
                text = (f"lowest mean split error {settings.LABELS[best]} ({100 * res[best]['split_error']['mean']:.2f}%); "
                        + ("not worse than it over the seeds: " + "; ".join(level) if level else
                           "every other row worse over the seeds") + ". ")
            for name, _, _ in CLAIMS:
                x = v[name]
                word, differ = seedcompare.claim_across(x, _others(dict(ev, seeds=seeds), checks, metric, c, name))
                if differ:
                    word += (f" ({seedcompare.seeds_label(seeds)}: {x['word']}; " + "; ".join(
                        f"{label}: {w}, {100 * d:+.2f}" for label, w, d in differ) + ")")
                text += (f"{settings.LABELS[x['row']]} against {settings.LABELS[x['against']]}: {word} "
                         f"({100 * res[x['row']]['split_error']['mean']:.2f}% against "
                         f"{100 * res[x['against']]['split_error']['mean']:.2f}%, difference {100 * x['difference']:+.2f} "
                         f"({100 * x['low']:+.2f} to {100 * x['high']:+.2f}); one run alone: "
                         + ", ".join(f"{w} in {n}" for w, n in seedrows.counts(x["one_run"])) + "). ")
            lines.append(head + text.rstrip())
    return "\n".join(lines) + "\n"


def sts_file(results: str, seed: int) -> str:
    """Where make seeds leaves seed ``seed``'s STS Benchmark JSON: make sts's for seed 0, else
    ``<results>/seeds/<seed>/sts.json``."""
    return os.path.join(results, "sts.json") if seed == 0 else os.path.join(results, "seeds", str(seed), "sts.json")


def sts_evaluate(provs: list) -> dict:
    """The STS Benchmark's learned rows over the seeds, from each seed's sts.json (``provs``, in
    seed order): test Pearson's spread of the learned family on STS-B train (common components
    removed, as the best peer chosen on dev is scored), of the family on WordLlama's tokens, and of
    the rows they are compared with; the words of :func:`repro.evaluate.seedrows.interval_word`."""
    learned = [p["results"]["learned_best"]["with"]["test"] for p in provs]
    tokens = [p["tokens"]["results"] for p in provs]
    peer = learned[0]["vs_dev_best_peer"]

    def claim(diffs, row, against):
        return {"word": seedrows.interval_word(diffs), "difference": float(sum(d["difference"] for d in diffs) / len(diffs)),
                "per_seed": [d["difference"] for d in diffs], "row": row, "against": against}
    out = {
        "rows": {"learned_best": seedrows.spread([x["pearson"] for x in learned]),
                 "peer_best": seedrows.spread([p["results"][peer["peer"]][peer["removal"]]["test"]["pearson"] for p in provs]),
                 "tokens_learned_best": seedrows.spread([t["learned_best"]["test_pearson"] for t in tokens]),
                 "wordllama": seedrows.spread([t["mean"]["test_pearson"] for t in tokens])},
        "verdicts": {"peers": claim([x["vs_dev_best_peer"] for x in learned], "learned_best", peer["peer"]),
                     "wordllama": claim([t["learned_best"]["vs_mean"] for t in tokens], "tokens_learned_best", "wordllama")},
        "chosen": {"learned_best": seedrows.counts(["{map}-{distance}".format(**p["chosen_on_dev"]["learned_best"]) for p in provs]),
                   "tokens": seedrows.counts([p["tokens"]["chosen"]["member"] for p in provs])},
    }
    defaults = [p["tokens"].get("default_vs_mean") for p in provs]
    if all(defaults):  # one shipped model: the seeds change only the bootstrap's resamples, never its numbers
        out["rows"]["encoder_default"] = seedrows.spread([d["pearson"] for d in defaults])
        out["verdicts"]["encoder"] = claim(defaults, "encoder_default", "wordllama")
    return out


def sts_markdown(sts: dict, seeds: list) -> str:
    """results/seeds_sts.md: the STS Benchmark's learned rows over the seeds."""
    names = {"learned_best": "Weights learned on STS-B train, best transform (dev), components removed",
             "peer_best": "Peers, best configuration (dev), as the best peer chosen on dev is scored",
             "tokens_learned_best": "Weights learned on WordLlama's token space (STS-B train, best transform, dev)",
             "wordllama": "WordLlama (its own mean pooling)",
             "encoder_default": "The `Encoder`'s shipped default (`Encoder.pretrained()`, one model for every seed)"}
    lines = [f"STS Benchmark test over {len(seeds)} seeds ({', '.join(map(str, seeds))}): Pearson × 100, the mean ± "
             "standard deviation (min–max).", "", "| Row | test Pearson |", "|---|---:|"]
    for k, title in ((k, t) for k, t in names.items() if k in sts["rows"]):
        sp = sts["rows"][k]
        lines.append(f"| {title} | {sp['mean']:.2f} ± {sp['sd']:.2f} ({sp['min']:.2f}–{sp['max']:.2f}) |")
    lines += ["", "Verdicts (every seed's paired 95% interval above 0: better; `repro.evaluate.seedrows.interval_word`), "
              "the seed-mean difference in Pearson points, ours minus theirs:", ""]
    for k, v in sts["verdicts"].items():
        lines.append(f"- {names[v['row']]} against {names.get(v['against'], v['against'])}: {v['word']} "
                     f"({v['difference']:+.2f}; per seed " + ", ".join(f"{d:+.2f}" for d in v["per_seed"]) + ").")
    lines += ["", "Chosen on each seed's dev pairs: " + "; ".join(
        f"{'the family' if k == 'learned_best' else 'on WordLlama tokens'} " + ", ".join(f"{m} in {n} of {len(seeds)}" for m, n in c)
        for k, c in sts["chosen"].items()) + ".", ""]
    return "\n".join(lines)


def glance(provs: dict, checks: dict | None = None) -> str:
    """The README's results at a glance, from the seed tables' JSON ``provs`` {table: JSON}: one column
    per claim (a short label, its title in the legend below), one row per table column and metric, each cell the seed-aware word and the
    seed-mean difference in points, checked against the check sets ``checks`` {table or "sts":
    [(name, JSON)]} (a claim they do not all read the same "depends on the seed")."""
    start, end = readme_markers("glance")
    checks = checks or {}
    first = provs[1] if 1 in provs else next(iter(provs.values()))
    seeds, commit = first["seeds"], first["commit"]
    own = seedcompare.seeds_label(seeds)
    heads, cells = [], {name: [] for name in ("paper", "peers", "wordllama", "encoder")}
    n, differ = 0, 0
    for table, ev in ((t, e) for t, e in provs.items() if t != "sts"):
        for metric in settings.TABLE_METRICS:
            for c in settings.TABLE_SETTINGS[table]:
                heads.append(f"{_title(c)}, {METRIC_SHORT[metric]}")
                for name in cells:
                    v = ev["verdicts"][metric][c].get(name)
                    others = _others(ev, checks.get(table, []), metric, c, name)
                    cells[name].append(seedcompare.across_cell(v, others, own) if v else "–")
                    n += bool(v)
                    differ += bool(v) and bool(seedcompare.claim_across(v, others)[1])
    if "sts" in provs:  # Pearson points, ours minus theirs: above 0, ours better
        heads.append("STS-B test, Pearson")
        sts = provs["sts"]["verdicts"]
        for name in cells:
            v = sts.get(name)
            others = [(seedcompare.short_label(p, provs["sts"]), (p.get("verdicts") or {}).get(name))
                      for _, p in checks.get("sts", [])]
            cells[name].append(seedcompare.across_cell(v, others, own, scale=1.0) if v else "–")
            n += bool(v)
            differ += bool(v) and bool(seedcompare.claim_across(v, others)[1])
    lines = [start, "", f"Written by `make seeds` (commit `{short_commit(commit)}`) from {len(seeds)} seeds "
             f"({', '.join(map(str, seeds))}), every seed on the same test couples. Each cell: the verdict over "
             "the test couples and the seeds (better, level, worse, depends on the seed; not ranked where a column "
             "has too few independent clusters) and the seed-mean difference of split error in points (ours minus "
             "theirs; below 0: ours errs less; on STS-B, Pearson points, above 0: ours is better). The `Encoder`'s "
             "default is one shipped model, the same in every seed: its cell counts the test pairs only.", ""]
    sets = {folder: p for key in checks for folder, p in checks[key] if key != "sts"}
    if sets:
        lines += ["Checked against " + "; ".join(f"{seedcompare.set_label(p)}" for p in sets.values())
                  + f" (`results/{seedcompare.CHECKS}/`): a claim that one of them reads with another word "
                  f"reads \"depends on the seed\", each set's word beside it ({differ} of {n} claims).", ""]
    claims = [name for name, row in cells.items() if set(row) != {"–"}]  # one column per claim, one row per column
    lines += ["| Task, metric | " + " | ".join(CLAIM_LABELS[c] for c in claims) + " |",
              "|---|" + "---|" * len(claims)]
    for i, head in enumerate(heads):
        lines.append(f"| {head} | " + " | ".join(cells[c][i] for c in claims) + " |")
    lines += ["", "The claims: " + "; ".join(f"**{CLAIM_LABELS[c]}**: {CLAIM_TITLES[c]}" for c in claims) + ".",
              "", end]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--seeds", required=True, help="comma-separated seeds, e.g. 0,1,2,3,4")
    ap.add_argument("--results", required=True)
    ap.add_argument("--tables", default="1,2", help="the tables to evaluate (comma-separated, may be empty: the "
                    "glance then reads <results>/seeds_table<N>.json)")
    ap.add_argument("--sts", action="store_true", help="also the STS Benchmark's learned rows, from each seed's sts.json "
                    "(seed 0: <results>/sts.json; seed s: <results>/seeds/<s>/sts.json)")
    ap.add_argument("--readme", action="append", default=[])
    args = ap.parse_args(argv)
    try:
        seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
        tables = [int(x) for x in args.tables.split(",") if x.strip()]
    except ValueError:
        raise InputError("--seeds", f"expected comma-separated integers, got {args.seeds!r}") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise InputError("--seeds", f"expected distinct seeds, got {args.seeds!r}")
    commit = git_commit()
    checks = all_checks(args.results)
    provs = {}
    for table in tables:
        files, meta = load(args.data, seeds, table)
        ev = evaluate(files, meta, seeds, table)
        name = os.path.join(args.results, f"seeds_table{table}")
        prov = dict(ev, table=table, seeds=seeds, commit=commit, hardware=hardware(), versions=versions(),
                    kernels=kernel_state())
        provs[table] = prov
        write_json(f"{name}.json", prov)
        figures.save(figures.seed_errors(ev["results"]["euclidean"], {c: _title(c) for c in settings.TABLE_SETTINGS[table]},
                                         settings.LABELS), args.results, f"seeds_table{table}_errors")
        print(f"Table {table} over seeds {seeds}: {name}.md (.json beside it)")
    if args.sts:
        paths = [sts_file(args.results, s) for s in seeds]
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            raise InputError(missing[0], "no such file (make seeds runs make sts for every seed)")
        sts = sts_evaluate([read_json(p) for p in paths])
        provs["sts"] = dict(sts, seeds=seeds, commit=commit)
        write_json(os.path.join(args.results, "seeds_sts.json"), provs["sts"])
        write_text(os.path.join(args.results, "seeds_sts.md"), sts_markdown(sts, seeds))
        print(f"STS Benchmark over seeds {seeds}: {os.path.join(args.results, 'seeds_sts.md')} (.json beside it)")
    for key, file in ((1, "seeds_table1.json"), (2, "seeds_table2.json"), ("sts", "seeds_sts.json")):
        path = os.path.join(args.results, file)  # the glance also from what an earlier run wrote
        if key not in provs and os.path.exists(path):
            provs[key] = read_json(path)
    for table in (t for t in (1, 2) if t in provs):  # rendered from the JSON, against the check sets
        write_text(os.path.join(args.results, f"seeds_table{table}.md"),
                   markdown(table, provs[table], provs[table]["seeds"], checks[table]))
        if args.readme:
            ReadmeBlock(args.readme, f"seed-findings-table{table}").fill(findings_block(table, provs[table], checks[table]))
    if args.readme and {1, 2, "sts"} <= set(provs):
        other = next((p for p in provs.values() if p["seeds"] != seeds), None)
        if other is not None:
            raise InputError(args.results, f"a seed table there was made over seeds {other['seeds']}, not {seeds} "
                             "(make seeds remakes them)")
        ReadmeBlock(args.readme, "glance").fill(glance(provs, checks))
    return 0


def all_checks(results: str) -> dict:
    """{1, 2, "sts": [(name, JSON)]}: the check sets under ``<results>/checks/`` of each seed table."""
    files = {1: "seeds_table1.json", 2: "seeds_table2.json", "sts": "seeds_sts.json"}
    return {key: seedcompare.check_sets(results, file) for key, file in files.items()}


def findings_block(table: int, prov: dict, checks: list = ()) -> str:
    """docs/RESULTS.md's seed-aware findings of table ``table`` from its seed JSON ``prov``, checked
    against the check sets ``checks`` ([(name, JSON)])."""
    start, end = readme_markers(f"seed-findings-table{table}")
    return "\n".join([start, "", f"Written by `make seeds` from `results/seeds_table{table}.json` (commit "
                      f"`{short_commit(prov['commit'])}`, seeds {', '.join(map(str, prov['seeds']))}):", "",
                      findings(table, prov, prov["seeds"], checks), end])


if __name__ == "__main__":
    sys.exit(run(main))
