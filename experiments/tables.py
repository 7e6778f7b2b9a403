"""The paper's tables from the score files: results/table<N>.{md,csv,tex,json} and the README.

    python -m experiments.tables --table 1|2 --data data --results results [--readme README.md --started EPOCH]

The columns of table N are the settings ``repro.settings.TABLE_SETTINGS[N]``, the rows the
methods of ``repro.settings.METHODS``; the paper's own table is printed beside ours, and the
JSON carries the provenance (commit, seed, data sizes and checksums, models, timings, hardware,
versions). Table 2 also gives every split error's 95% intervals, the exact binomial one and a
bootstrap over the test split's connected components (couples that share tweets are not
independent), and the counts of tweets and couples of each column. Every row of ours against the
best peer: ``results/table<N>_vs_peer{,_cosine}.md``; the learned family's members:
``results/table<N>_family.md`` (:mod:`experiments.familytable`).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time
from typing import NamedTuple

import pandas as pd

from experiments import familytable, figures, tokenrows
from repro.io.readmeblock import ReadmeBlock, readme_markers, short_commit
from repro import settings
from repro.core import metrics
from repro.evaluate import family, report
from repro.io import store
from repro.errors import run
from repro.io.layout import Layout
from repro.pins import state as kernel_state
from repro.io.provenance import git_commit, hardware, lock_state, versions
from repro.io.store import read_json, read_json_if_any as _optional_json, write_json, write_text


class Spec(NamedTuple):
    number: int
    caption: str  # LaTeX caption
    paper_note: str  # the line above the paper's table
    stages: dict  # README wall-time groups: group -> stage-name prefixes
    ci: bool  # confidence intervals beside the split errors


SPECS = {
    1: Spec(1, "Split error and JS divergence on Wikipedia couples (reproduction of Table 1).",
            "The paper's Table 1 (Wikipedia dump of March 2015, 4.9M pairs per setting, Google News vectors):",
            {"install": ("install",), "data chain": ("wikidump", "vocab", "word2vec", "docfreq", "pairs-wiki", "tokens-df"),
             "kappa search and training": ("weights-wiki", "family-wiki", "tokenfamily-wiki"),
             "scoring": ("scores-wiki", "scores-other", "tokenscores-wiki")},
            False),
    2: Spec(2, "Split error and JS divergence on tweet couples (reproduction of Table 2).",
            "The paper's Table 2 (341,949 tweets of 100 news agencies; 15,000 + 20,000 + 13,645 couples per class):",
            {"tweets": ("tweets", "pairs-twitter"),
             "kappa search and training": ("weights-twitter", "family-twitter", "tokenfamily-twitter"),
             "scoring": ("scores-twitter", "tokenscores-twitter")}, True),
}


#: What each table's caption says of its metric.
CAPTIONS = {
    "euclidean": "Every row scored by minus the Euclidean distance of its two text vectors (the paper's "
                 "protocol), except tf-idf, which the paper scores by the cosine; the peers too.",
    "cosine": "Every row scored by the cosine of its two text vectors.",
}


def findings_block(number: int, prov: dict) -> str:
    """The README's verdicts of table ``number``, from its JSON (``prov``): what make writes
    between the ``findings-table<N>`` markers."""
    start, end = readme_markers(f"findings-table{number}")
    body = report.findings({"euclidean": prov["results"], "cosine": prov["results_cosine"]}, titles(number))
    pairs = prov.get("pairs") or {}
    cues = [f"**{settings.SETTINGS[s].title}:** " + cue_line(pairs[s]["cues"]).removeprefix("What the column measures: ")
            for s in settings.TABLE_SETTINGS[number] if (pairs.get(s) or {}).get("cues")]
    return "\n".join([start, "", f"Written by `make table{number}` from `results/table{number}.json` "
                       f"(commit `{short_commit(prov['commit'])}`):", "", body]
                      + ([_units_note(prov["results"]), ""] if number == 2 else [])
                      + (["Besides meaning, cues tell related couples from unrelated ones:", ""]
                         + [f"- {c}" for c in cues] + [""] if cues else []) + [end])


def titles(table: int) -> dict:
    return {s: settings.SETTINGS[s].title for s in settings.TABLE_SETTINGS[table]}


def markers(table: int) -> tuple[str, str]:
    return readme_markers(f"table{table}")


def paper_markdown(table: int) -> str:
    paper = settings.PAPER_TABLES[table]
    cols = {s: t for s, t in titles(table).items() if s in next(iter(paper.values()))}  # the paper's columns
    lines = ["| Method | " + " | ".join(f"{cols[s]}: split error | JS" for s in cols) + " |",
             "|---|" + "---:|---:|" * len(cols)]
    for m in (m for m in settings.METHODS if m in paper):  # the peers are not in the paper
        cells = [f"{100 * paper[m][s][0]:.2f}% | {paper[m][s][1]:.4f}" for s in cols]
        lines.append(f"| {settings.LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _kappa_note(m: dict) -> str:
    """How a model's kappa was had, for the table's notes (nothing for the contrastive loss)."""
    if m["kappa"] is None:
        return ""
    folds = {"grouped": " of whole clusters", "couples": " of couples"}.get(m.get("cv_folds"), "")
    how = {"cv": f"by 5-fold CV (folds{folds})" if folds else "by 5-fold CV", "given": "given", "model": f"from {m.get('kappa_model', 'another model')}"}
    out = f", kappa {m['kappa']:g} {how.get(m['kappa_source'], m['kappa_source'])}"
    if m.get("cv_extended"):
        out += f" (the grid's edge won: searched on to {', '.join(f'{k:g}' for k in m['cv_extended'])})"
    if m.get("cv_flat"):
        out += " (flat: every kappa's mean held-out error within the winner's fold spread, so kappa is undetermined)"
    return out


def provenance(args, results) -> dict:
    layout = Layout(args.data)
    sources = sorted({settings.setting(s).source for s in results})
    models = {f"{s}-{loss}": store.load_model(layout.model(s, loss)).summary()
              for s in sources for loss in settings.LOSSES if os.path.exists(layout.model(s, loss))}
    scores = {s: _optional_json(os.path.splitext(layout.scores(s))[0] + ".json") for s in results}
    files = [layout.vectors, layout.df] + [layout.pairs(s, k) for s in sources for k in settings.SPLITS]
    return {
        "table": args.table, "commit": git_commit(), "seed": args.seed,
        "corpus": _optional_json(layout.path("paragraphs.json")),
        "word2vec": _optional_json(layout.path("w2v", "summary.json")),
        "pairs": {s: _optional_json(layout.pairs_summary(s)) for s in sources},
        "other_vectors": scores.get("other") and {k: v for k, v in scores["other"].items() if k != "seconds"},
        "models": models,
        # the same bytes give the same table; word2vec's float arithmetic differs across CPUs (docs/RESULTS.md, "Repeatability")
        "checksums": {os.path.relpath(p, args.data): store.sha256(p) for p in files if os.path.exists(p)},
        "scoring_seconds": {s: (v or {}).get("seconds") for s, v in scores.items()},
        "stage_seconds": {os.path.basename(p)[:-5]: read_json(p)["seconds"]
                          for p in sorted(glob.glob(os.path.join(layout.timings, "*.json")))},
        "hardware": hardware(), "versions": versions(), "lock": lock_state(), "kernels": kernel_state(),
        "results": results,
        "make_wall_seconds": (time.time() - args.started) if args.started else None,
        "make_jobs": make_jobs(os.environ.get("MAKEFLAGS", "")) if args.started else None,
        # every stage of this table ran in this make (its timing written after make started): the
        # wall time is the whole chain's, not a rerun's of what was stale
        "make_ran_every_stage": bool(args.started) and all(
            os.path.getmtime(p) >= args.started for p in glob.glob(os.path.join(layout.timings, "*.json"))
            if _is_stage_of(SPECS[args.table], os.path.basename(p)[:-5])),
    }


def make_jobs(makeflags: str) -> int:
    """The jobs make ran side by side, from its ``MAKEFLAGS`` (``-j2`` or ``-j 2``; 1 without -j)."""
    m = re.search(r"(?:^|\s)-[a-zA-Z]*j\s*(\d+)", makeflags)
    return int(m.group(1)) if m else 1


def _is_stage_of(spec: Spec, stage: str) -> bool:
    """Whether the timed ``stage`` (its name in the timings folder) is one of table ``spec``'s."""
    return any(stage.startswith(p) for keys in spec.stages.values() for p in keys)


def _stage_line(spec: Spec, stages: dict, wall: float | None = None, jobs: int | None = None) -> list[str]:
    """The stages' times, summed, and make's wall time from its start to the table (``wall``
    seconds, with ``jobs`` stages side by side) where the run recorded it."""
    if not stages:
        return []
    mine = {k: v for k, v in stages.items() if _is_stage_of(spec, k)}
    parts = [f"{g} {sum(v for k, v in mine.items() if k.startswith(keys)):.0f} s" for g, keys in spec.stages.items()]
    side = f", {jobs} jobs side by side" if jobs and jobs > 1 else ", one job at a time"
    made = f"; make's wall time from its start to this table {wall / 60:.1f} min{side}" if wall else ""
    return ["", f"Time of the stages, as last run: {sum(mine.values()) / 60:.1f} min in all "
            f"({', '.join(parts)}){made}; a rerun with nothing stale takes well under a second."]


def _twitter_lines(prov: dict) -> list[str]:
    lines = []
    for setting in settings.TWITTER_SETTINGS:
        tw = (prov.get("pairs") or {}).get(setting) or {}
        if tw:
            lines += _twitter_setting_lines(settings.SETTINGS[setting].title, tw)
    return lines


def _count(x) -> str:
    return f"{x:,}" if isinstance(x, int) else "?"


def _percent(x) -> str:
    return "?%" if x is None else f"{100 * x:.0f}%"


def cue_line(cues: dict) -> str:
    """One sentence from a tweetsets summary's ``cues`` (:mod:`repro.data.tweets.tweetsets`): what tells
    the column's related couples from its unrelated ones besides meaning."""
    manual = cues.get("manual_retweet_share")
    answer = cues.get("answer_token_share") or {}
    words = cues.get("mean_known_words") or {}
    known = lambda x: "?" if x is None else f"{x:.1f}"  # noqa: E731
    return ("What the column measures: "
            + (f"{_percent(manual.get('related'))} of related couples involve a manual retweet "
               f"({_percent(manual.get('related_test'))} of the test ones), " if manual else "")
            + f"{_percent(answer.get('related'))} share a tweet-chat answer token (unrelated: "
            f"{_percent(answer.get('unrelated'))}), the five largest clusters hold "
            f"{_percent(cues.get('top5_component_share_test'))} of the related test couples; related texts have "
            f"{known(words.get('related'))} known words, unrelated {known(words.get('unrelated'))}.")


def _twitter_setting_lines(title: str, tw: dict) -> list[str]:
    reading = ((tw.get("tweets") or {}).get("reading")) or {}
    pairing = ((tw.get("tweets") or {}).get("pairing")) or {}
    rules = ((tw.get("tweets") or {}).get("rules")) or {}
    c = tw["counts"]
    comp = (pairing.get("splits") or {}).get("largest_component") or {}
    by_source = reading.get("kept_by_source") or {}
    lines = [f"{title}: {_count(reading.get('records'))} tweets read, {_count(reading.get('kept'))} kept (English, "
             f"no duplicates, retweets as their original)"
             + (" (" + ", ".join(f"{k} {v:,}" for k, v in by_source.items()) + ")" if by_source else "")
             + f", {_count(pairing.get('duplicate_texts', 0))} more with a token list seen before dropped, "
             f"{_count(pairing.get('manual_retweets', 0))} manual retweets "
             + ("dropped" if rules.get("drop_manual_retweets") else "kept")
             + f", {_count(pairing.get('with_enough_words'))} with at least 5 words; "
             f"{_count(pairing.get('related'))} related couples within {rules.get('window_s', 900) / 60:g} minutes"
             + (" (fixed buckets)" if rules.get("buckets") else "")
             + f", cut into tweet-disjoint splits by connected component (the largest: {comp.get('couples', '?')} "
             f"couples of {comp.get('tweets', '?')} tweets; {tw.get('tweets_shared_across_splits', '?')} tweets in two "
             "splits), unrelated ones drawn within each split. "
             "Couples per split (related + unrelated; bootstrap units, of them clusters of related couples, "
             "related couples in the largest): " + ", ".join(
                 f"{k} {v['related']} + {v['unrelated']} ({v.get('components', '?')}, {v.get('related_clusters', '?')}, "
                 f"{v.get('largest_cluster_related', '?')})" for k, v in c.items())
             + f"; {sum(tw['dropped_empty_text'].values())} dropped for a text without a Wikipedia word.", ""]
    if tw.get("cues"):
        lines += [cue_line(tw["cues"]), ""]
    notes = (tw.get("tweets") or {}).get("notes") or []
    if notes:
        lines += [f"{title}, sources: " + "; ".join(notes) + ".", ""]
    return lines


def _units_note(results: dict) -> str:
    """The bootstrap units of each column's related test couples and their effective number,
    (sum n)^2 / sum n^2 (:func:`repro.core.metrics.effective_clusters`); columns below
    :data:`repro.core.metrics.MIN_CLUSTERS` are named as not ranked."""
    units = {s: next(iter(rows.values()))["boot_units"] for s, rows in results.items()}
    few = [settings.SETTINGS[s].title for s, rows in results.items() if not report.rankable(rows)]

    def one(s, u):
        n = u.get("effective_clusters")
        return f"{settings.SETTINGS[s].title} {u['related']:,}" + (f" ({n:,.1f} effective)" if n is not None else "")
    return ("Bootstrap units holding related test couples (an article, or a component of related tweet couples), "
            "and their effective number (sum n)^2 / sum n^2 over their sizes n: "
            + ", ".join(one(s, u) for s, u in units.items()) + "."
            + (f" Fewer than {metrics.MIN_CLUSTERS} effective clusters: {'; '.join(few)}. There the intervals of the "
               "cluster bootstrap are not trusted, and the verdicts do not rank the rows." if few else ""))


def _peer_lines(prov: dict) -> list[str]:
    """One line per column: the hyperparameters each peer row chose on validation, per metric."""
    lines = []
    for s, chosen in (prov.get("peer_choices") or {}).items():
        if not chosen:
            continue
        parts = []
        for m, by_metric in chosen.items():
            if m in settings.PEER_FAMILY:
                continue
            got = "; ".join(f"{metric}: " + (", ".join(f"{k} {v:g}" if isinstance(v, (int, float)) else f"{k} {v}"
                                                         for k, v in c["params"].items()) or "none")
                            for metric, c in by_metric.items())
            parts.append(f"{settings.LABELS[m].split(' (')[0]} ({got})")
        lines.append(f"Chosen on validation, {settings.SETTINGS[s].title}: " + "; ".join(parts) + ".")
    family_choices = {s: c["peer_best"] for s, c in (prov.get("peer_choices") or {}).items() if c and c.get("peer_best")}
    if family_choices:
        grids = sorted({c["grid"] for c in family_choices.values()})
        lines.append(f"Peers, best configuration (validation), chosen among {' or '.join(map(str, grids))} "
                     "configurations (word weighting x word map x common components, repro/evaluate/peerfamily.py): "
                     + "; ".join(f"{settings.SETTINGS[s].title}: " + "; ".join(
                         f"{metric}: {c[metric]['label']}" for metric in settings.TABLE_METRICS if metric in c)
                                 for s, c in family_choices.items()) + ".")
    return lines + [""] if lines else []


def _family_lines(prov: dict) -> list[str]:
    """One line: the member of the learned family each column chose on validation, per metric
    (the row "learned weights, best transform (validation)")."""

    choices = prov.get("family_choices") or {}
    if not choices:
        return []
    parts = [f"{settings.SETTINGS[s].title}: " + "; ".join(
        f"{metric}: weights learned {family.member(c['member']).label}" for metric, c in by.items())
        for s, by in choices.items()]
    return ["Learned weights, best transform (validation), the family member chosen: " + "; ".join(parts)
            + " (every member: the family table after this one).", ""]


def readme_block(spec: Spec, md: dict, pv: str, prov: dict, results_link: str = "results",
                 peer_md: dict | None = None) -> str:
    """The table block of the README (docs/RESULTS.md); ``results_link``: the results folder as a
    link from the block's file; ``peer_md``: {metric: every row of ours against the best peer}."""
    peer_md = peer_md or {}
    start, end = markers(spec.number)
    hw = prov["hardware"]
    other = prov.get("other_vectors") or {}
    remap = other.get("remap_test") or {}
    commit = short_commit(prov["commit"])
    lines = [start, "", "Made by `make table%d` (commit `%s`, seed %s) on %s (%s cores, JAX on %s)." % (
        spec.number, commit, prov["seed"], hw.get("cpu", hw.get("machine")), hw.get("cpus"), hw.get("jax_backend", "?"))]
    lines += _stage_line(spec, prov.get("stage_seconds") or {},
                         prov.get("make_wall_seconds") if prov.get("make_ran_every_stage") else None, prov.get("make_jobs"))
    lines += ["", f"**{CAPTIONS['euclidean']}**", "", md["euclidean"],
              f"![Split errors with their intervals]({results_link}/table{spec.number}_errors.png)", ""]
    if spec.ci:
        lines += ["95% CI: the exact (Clopper-Pearson) binomial interval of the split error on the test couples, "
                  "which takes the couples as independent. Bootstrap: the 2.5th and 97.5th percentiles of the "
                  "split error over 2,000 resamples (seed 0), stratified by class, with the validation threshold "
                  "fixed: the related couples resampled by their unit (a connected component of related tweet "
                  "couples), the unrelated ones one by one.", ""]
    lines += [_units_note(prov["results"]), ""]
    lines += [f"**{CAPTIONS['cosine']}**", "", md["cosine"]]
    lines += ["Every row against the learned weights (median loss), Euclidean table: the paper's binomial test "
              "(section 5.3; the two error counts taken as independent samples), the exact McNemar test (paired, "
              "but it too takes the couples as independent), and the paired cluster bootstrap of the difference "
              "in split error (this row minus the learned weights; the same 2,000 resamples of the couples' units "
              "for both rows, thresholds fixed), which respects couples that share an article or a tweet "
              f"(the cosine table's: `results/table{spec.number}_pvalues_cosine.md`):", "", pv]
    for metric, text in peer_md.items():
        lines += [f"Every row of ours against the peers, {'Euclidean' if metric == 'euclidean' else 'cosine'} "
                  "table (the same paired cluster bootstrap): against the peers' best configuration, chosen on "
                  "validation among as many configurations as our family (the like-for-like comparison), and "
                  "against the best peer by test error (the peer row of the lowest test split error in the column, "
                  "a choice on test: the strongest competitor in hindsight):", "", text]
    lines += _peer_lines(prov) + _family_lines(prov)
    lines += _twitter_lines(prov)
    if remap:
        lines += [f"Other vectors: {other.get('vectors')} ({other.get('dim')} d); "
                  f"{100 * remap.get('other_vocab_found', float('nan')):.1f}% of their vocabulary is in the corpus "
                  f"vocabulary, {100 * remap.get('corpus_vocab_found', float('nan')):.1f}% of the corpus vocabulary "
                  f"is in theirs, {100 * remap.get('tokens_kept', float('nan')):.1f}% of the test tokens kept.", ""]
    models = prov.get("models") or {}
    if models:
        lines += ["Learned weights: " + "; ".join(
            f"{name}: {m['epochs']} epochs" + _kappa_note(m)
            + (f", batches of {m['batch_related']} + {m['batch_related']}" if m.get("batch_related", 50) != 50 else "")
            for name, m in sorted(models.items())) + f" ({next(iter(models.values()))['distance']} distance).", ""]
    lines += [spec.paper_note, "", paper_markdown(spec.number), end]
    return "\n".join(lines)


def write_family(args, spec: Spec, files: dict, meta: dict, prov: dict) -> None:
    """The learned family's table (:mod:`experiments.familytable`) into ``<results>/table<N>_family.md``
    and, with ``--readme``, its block, from the score files ``files`` and their JSON ``meta``."""
    family_meta = {s: meta[s]["family"] for s in files}
    prov["family_choices"] = {s: m["chosen"] for s, m in family_meta.items()}
    sources = list(dict.fromkeys(settings.setting(s).source for s in files))  # the families the columns use
    prov["family_kappas"] = familytable.kappas(Layout(args.data), sources)
    text = familytable.body(spec.number, familytable.tables(files, family_meta, titles(spec.number)), prov)
    write_text(os.path.join(args.results, f"table{spec.number}_family.md"), text.rstrip("\n") + "\n")
    if args.readme:
        ReadmeBlock(args.readme, f"family-table{spec.number}").fill(familytable.block(spec.number, text))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", type=int, default=1, choices=sorted(SPECS))
    ap.add_argument("--data", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--readme", action="append", default=[],
                    help="a file whose table and findings blocks to regenerate (repeat it: each block is "
                         "written in the first file that holds its markers)")
    ap.add_argument("--started", type=float, default=0.0, help="epoch seconds when make started")
    args = ap.parse_args(argv)

    spec, cols = SPECS[args.table], titles(args.table)
    layout = Layout(args.data)
    names = [f"{m}@{metric}" for m in settings.METHODS for metric in settings.TABLE_METRICS]
    # each column's score file with its source's WordLlama rows, the families' rows chosen among both
    files, meta = tokenrows.columns(layout, cols, list(dict.fromkeys(names + familytable.load_names())))
    by_metric = {metric: {s: report.evaluate(report.table_scores(z, metric)) for s, z in files.items()}
                 for metric in settings.TABLE_METRICS}
    results = by_metric["euclidean"]
    prov = provenance(args, results)
    prov["results_cosine"] = by_metric["cosine"]
    prov["peer_choices"] = {s: meta[s].get("peers") for s in cols}
    write_family(args, spec, files, meta, prov)
    name = os.path.join(args.results, f"table{spec.number}")
    # both blocks checked before anything is written
    readme = ReadmeBlock(args.readme, f"table{spec.number}") if args.readme else None
    verdicts = ReadmeBlock(args.readme, f"findings-table{spec.number}") if args.readme else None
    md, pv, peer_md = {}, {}, {}
    for metric, res in by_metric.items():
        suffix = "" if metric == "euclidean" else f"_{metric}"
        md[metric] = report.markdown(res, cols, ci=spec.ci)
        pv[metric] = report.pvalues_markdown(res, cols)
        peer_md[metric] = report.peer_markdown(res, cols)
        write_text(f"{name}_vs_peer{suffix}.md", peer_md[metric])
        write_text(f"{name}{suffix}.md", md[metric])
        write_text(f"{name}_pvalues{suffix}.md", pv[metric])
        write_text(f"{name}{suffix}.tex", report.latex(res, cols, f"{spec.caption} {CAPTIONS[metric]}", ci=spec.ci))
    rows = report.csv_rows(results)
    for row, cos in zip(rows, report.csv_rows(by_metric["cosine"])):
        row.update({k.replace("_split_error", "_cosine_split_error").replace("_js", "_cosine_js"): v
                    for k, v in cos.items() if k != "method"})
    write_text(f"{name}.csv", pd.DataFrame(rows).to_csv(index=False, float_format="%.6f"))
    write_json(f"{name}.json", prov)
    intervals = report.interval_columns(results, spec.ci) or [("split_error_ci95", "95% CI")]
    figures.save(figures.error_intervals(results, cols, settings.LABELS, intervals), args.results,
                 f"table{spec.number}_errors")
    if readme is not None:
        readme.fill(readme_block(spec, md, pv["euclidean"], prov, readme.link(args.results), peer_md))
        verdicts.fill(findings_block(spec.number, prov))
    print(md["euclidean"])
    print(f"table written to {name}.md (.csv, .tex, .json, _cosine.md beside it)")


if __name__ == "__main__":
    sys.exit(run(main))
