"""Fill the speed block of docs/RESULTS.md from benchmarks/results/*.json (run by ``make bench``)."""

from __future__ import annotations

import os
import sys

from repro.errors import run
from repro.io.readmeblock import ReadmeBlock, readme_markers
from repro.io.store import read_json, read_json_if_any

START, END = readme_markers("bench")


def break_even(train: dict, form: str = "gram") -> int:
    """Fewest epochs for which build + k epochs of ``form`` beat k gather epochs."""
    gain = train["gather_epoch_s"] - train[f"{form}_epoch_s"]
    return int(train[f"{form}_precompute_s"] // gain) + 1 if gain > 0 else 0


def encode_lines(enc: dict) -> list[str]:
    """The encoding rows: ours against fse Average with 1 and 2 workers, per vocabulary size."""
    some = next(iter(enc["cases"].values()))
    lines = [f"Encoding {some['texts']:,} texts of {some['length']} words, {some['dim']}-d vectors, token lists in and "
             f"vectors out, vocabulary lookup included (medians of {enc['rounds']} interleaved rounds of "
             f"{enc['repeats']}; fse {enc['fse'].get('fse', '?')} built in a side environment; commit "
             f"`{str(enc.get('commit', '?'))[:12]}`):", "",
             f"| vocabulary | Encoder.transform, texts/s ({enc.get('kernels', 'numpy')}) | the NumPy path "
             "(`REPRO_NUMBA=0`) | fse Average, 1 worker | fse Average, 2 workers | vs fse (2 workers) |",
             "|---:|---:|---:|---:|---:|---:|"]
    for c in enc["cases"].values():
        t = c["texts_per_s"]
        numpy_path = f"{t['ours_numpy']:,.0f}" if "ours_numpy" in t else "-"
        lines.append(f"| {c['vocab']:,} words | {t['ours']:,.0f} | {numpy_path} | {t['fse_1']:,.0f} | {t['fse_2']:,.0f} | "
                     f"{c['speedup_vs_fse_2']:.2f}x |")
    before, after = enc["load_average_before"][0], enc["load_average_after"][0]
    lines += ["", f"`encode_speedup_vs_fse` = {enc['encode_speedup_vs_fse']:.2f} (the smaller case); load average "
              f"{before:.2f} before and {after:.2f} after on the {enc.get('cpus', '?')}-core machine (shared). With every "
              "weight 1 the two agree to float32 rounding (the plain mean).", ""]
    return lines


def vectors_lines(vec: dict) -> list[str]:
    """Loading word vectors: the converted folder, our text parser and gensim's (bench_vectors.py)."""
    text, folder, cmd = vec["text"], vec["folder"], vec["command"]
    speedup = vec["text_speedup_vs_gensim"]
    return [f"Loading {vec['words']:,} word vectors of {vec['dim']} d (a GloVe-style text file of "
            f"{vec['text_mb']:,.0f} MB written by benchmarks/bench_vectors.py; medians of {vec['rounds']} interleaved "
            f"rounds for text, {vec['repeats']} loads of the folder, warm page cache; commit "
            f"`{str(vec.get('commit', '?'))[:12]}`):", "",
            "| source | reader | seconds | vs gensim |", "|---|---|---:|---:|",
            f"| text | gensim `KeyedVectors.load_word2vec_format` | {text['gensim_median_s']:.2f} | 1.0x |",
            f"| text | `repro.io.vectorfiles.read_text_vectors` (pandas' C parser) | {text['ours_median_s']:.2f} | "
            f"{speedup:.1f}x |",
            f"| folder of `repro vectors` | `load_word_vectors(..., normalize=False)`, memory-mapped | "
            f"{folder['raw_median_s']:.3f} | |",
            f"| folder of `repro vectors` | `load_word_vectors(...)`, unit length (what the encoder loads) | "
            f"{folder['unit_median_s']:.3f} | |",
            f"| folder of `repro vectors` | `Encoder.pretrained(...)` with a df file of {folder['df_words']:,} words | "
            f"{folder['encoder_median_s']:.3f} | |", "",
            f"The two text readers gave {'identical' if text['identical'] else 'DIFFERENT'} words and matrices, bit "
            f"for bit; `text_speedup_vs_gensim` = {speedup:.1f}, `folder_load_s` = {vec['folder_load_s']:.3f}. "
            f"`repro encode` of {cmd['texts']} texts, end to end in a fresh process (imports included): "
            f"{cmd['folder_s']:.2f} s from the folder, {cmd['text_s']:.2f} s from the text file.", ""]


def train_lines(train: dict) -> list[str]:
    """The epoch table of one bench_train run: NumPy reference and the three data forms."""
    return ["| trainer | couples/s | epoch (s) | vs NumPy | compile (s) |", "|---|---:|---:|---:|---:|",
            f"| NumPy reference, same loss and gradient | {train['numpy_pairs_per_s']:,.0f} | {train['numpy_epoch_s']:#.3g} | 1.0x | |",
            f"| repro, gather form | {train['gather_pairs_per_s']:,.0f} | {train['gather_epoch_s']:#.3g} | "
            f"{train['gather_speedup']:.1f}x | {train['gather_compile_s']:.2f} |",
            f"| repro, Gram form | {train['gram_pairs_per_s']:,.0f} | {train['gram_epoch_s']:#.3g} | "
            f"{train['gram_speedup_per_epoch']:.1f}x | {train['gram_compile_s']:.2f} |",
            f"| repro, quadratic form (default) | {train['quad_pairs_per_s']:,.0f} | {train['quad_epoch_s']:#.3g} | "
            f"{train['quad_speedup_per_epoch']:.1f}x | {train['quad_compile_s']:.2f} |", ""]


def gpu_lines(gpu: dict) -> list[str]:
    """The same epoch on a GPU (make bench-gpu), the NumPy reference on that machine's CPU."""
    return [f"The same epoch on an {gpu.get('accelerator', gpu['device'])} (`make bench-gpu`, commit "
            f"`{str(gpu.get('commit', '?'))[:12]}`, JAX {gpu['jax']}; the NumPy reference on its "
            f"{gpu.get('cpu', 'CPU')}, {gpu['cpus']} cores; repro's deterministic compile options, "
            "repro/core/jitting.py):", ""] + train_lines(gpu)


def first_call_lines(first: dict) -> list[str]:
    """A command-line user's first call (bench_first_call.py): ``repro encode`` of 100 texts."""
    runs = ", ".join(f"{t:.2f}" for t in first["runs_s"])
    return [f"A command-line user's first call: `repro encode` of {first['texts']} texts with the shipped weights "
            f"from a folder of {first['vectors']} ({first['words']:,} words), end to end in a fresh process: "
            f"median **{first['median_s']:.2f} s** of {len(first['runs_s'])} runs ({runs}; budget "
            f"{first['budget_s']:g} s: {'met' if first['within_budget'] else 'MISSED'}); JAX "
            f"{'imported' if first['jax_imported'] else 'not imported'} (benchmarks/bench_first_call.py, commit "
            f"`{str(first.get('commit', '?'))[:12]}`).", ""]


def neighbours_lines(nb: dict) -> list[str]:
    """Exact neighbours against the brute-force NumPy a user writes (bench_neighbours.py)."""
    mem = nb["peak_memory"]
    return [f"Exact neighbours: the top {nb['k']} by the cosine of {nb['queries']:,} queries among {nb['items']:,} "
            f"items, {nb['dim']}-d float32 (benchmarks/bench_neighbours.py, commit `{str(nb.get('commit', '?'))[:12]}`): "
            f"`repro.search.neighbours.top_k` {nb['ours_s']:.1f} s, the NumPy brute force (normalise, matmul and "
            f"argpartition, {nb['baseline_block']:,} queries at a time) {nb['baseline_s']:.1f} s: "
            f"`neighbours_speedup_vs_numpy` = {nb['neighbours_speedup_vs_numpy']:.2f}; the same ids for "
            f"{nb['same_ids_share']:.2%} of the queries (float32 against exact float64 scores); peak memory "
            f"{mem['ours_mb']:,.0f} MB against {mem['baseline_mb']:,.0f} MB on {mem['queries']:,} queries.", ""]


def second_call_lines(second: dict) -> list[str]:
    """A command-line user's second call (bench_second_call.py): ``repro similarity`` with the
    default model, and with the shipped model of a word map from a folder, what the first call
    cached read back."""
    runs = ", ".join(f"{t:.2f}" for t in second["second_runs_s"])
    default = second.get("default_call_s")
    tail = (f"with the shipped model of a word map (`--pretrained best`, Zipfian whitening) from a folder of "
            f"{second['vectors']} ({second['words']:,} words), its mapped space cached beside the vectors: median "
            f"{second['second_call_s']:.2f} s ({second['second_call_cpu_s']:.2f} s of CPU) of "
            f"{len(second['second_runs_s'])} runs ({runs}), {second['uncached_s']:.2f} s without the cache, "
            f"{second['first_call_s']:.2f} s for the call that wrote it")
    if default is None:
        head = "A second call of `repro similarity` (two texts; the default model could not run here) "
    else:
        head = (f"A second call: `repro similarity` of two texts with the default model and no files, its wordfreq "
                f"counts cached by the first call: median **{default:.2f} s** ({second['default_call_cpu_s']:.2f} s "
                f"of CPU; target {second['target_s']:g} s: {'met' if second['within_target'] else 'MISSED'}), "
                f"{second['default_uncached_s']:.2f} s without the cache, {second['default_first_call_s']:.2f} s "
                f"for the call that wrote it; ")
    lines = [head + tail + f" (benchmarks/bench_second_call.py, commit `{str(second.get('commit', '?'))[:12]}`).", ""]
    cli = second.get("cli")
    if cli:
        calls = ", ".join(f"`repro {c}` **{cli[c]['second_call_s']:.2f} s**" for c in ("encode", "similarity", "neighbours"))
        met = all(cli[c]["within_target"] for c in ("encode", "similarity", "neighbours"))
        lines += [f"Second calls on three texts with the default model (median of {cli['runs']}): {calls}; "
                  f"`python -c \"import numpy\"` {cli['numpy_s']:.2f} s beside them (target: at most "
                  f"{cli['target_s']:g} s and {cli['over_numpy_target_s']:g} s above NumPy's import: "
                  f"{'met' if met else 'MISSED'}).", ""]
    return lines


def block(train: dict, extract: dict, enc: dict | None = None, gpu: dict | None = None,
          vec: dict | None = None, first: dict | None = None, nb: dict | None = None,
          second: dict | None = None) -> str:
    lines = [START, "",
             f"Made by `make bench` (commit `{str(train.get('commit', '?'))[:12]}`) on {train.get('cpu', train['machine'])} "
             f"({train['cpus']} cores), JAX {train['jax']} on {train['device']}.", "",
             f"One epoch of Algorithm 1 (median loss, {train['pairs_per_epoch']:,} couples, n = {train['n']}, "
             f"d = {train['dim']}, a {train['vocab']:,}-word table):", ""] + train_lines(train) + [
             f"The quadratic form is built once per run in {train['quad_precompute_s']:.2f} s (the Gram form in "
             f"{train['gram_precompute_s']:.2f} s), so its first epoch with the build is "
             f"{train['quad_speedup_first_epoch']:.1f}x the NumPy epoch, and a run of "
             f"{break_even(train, 'quad')} or more epochs is faster than in the gather form; `repro.core.fit.fit` shares "
             "one build across every kappa, every fold and the final run.", ""]
    if gpu:
        lines += gpu_lines(gpu)
    if extract:
        ours, gs, mem = extract["ours"], extract["gensim_default"], extract["memory"]
        lines += [f"Dump extraction ({extract['xml_mb']:.1f} MB of XML, best of {extract['repeats']}):", "",
                  "| extractor | MB/s | paragraphs/s |", "|---|---:|---:|",
                  f"| repro.wikidump, {ours['workers']} workers | {ours['mb_per_s']:.2f} | {ours['paragraphs_per_s']:,.0f} |",
                  f"| gensim WikiCorpus(...).get_texts() | {gs['mb_per_s']:.2f} | |", "",
                  f"{extract['speedup_vs_gensim_default']:.2f}x gensim; peak memory {mem['one']['max_process_rss_mb']:.1f} MB "
                  f"on the dump and {mem['many']['max_process_rss_mb']:.1f} MB on it repeated {mem['copies']} times "
                  f"({mem['growth_max_process']:.2f}x).", ""]
    if enc:
        lines += encode_lines(enc)
    if vec:
        lines += vectors_lines(vec)
    if first:
        lines += first_call_lines(first)
    if nb:
        lines += neighbours_lines(nb)
    if second:
        lines += second_call_lines(second)
    lines.append(END)
    return "\n".join(lines)


def read_results(results: str) -> dict:
    """The benchmarks' result files of ``results`` as :func:`block`'s arguments: ``train.json``
    (required), the others where they are (``extract`` ``{}``, the rest None without a file)."""
    files = {"extract": "extract.json", "enc": "encode.json", "gpu": "train-gpu.json", "vec": "vectors.json",
             "first": "first-call.json", "nb": "neighbours.json",
             "second": "second-call.json"}
    found = {"train": read_json(os.path.join(results, "train.json"))}
    for key, name in files.items():
        found[key] = read_json_if_any(os.path.join(results, name))
    found["extract"] = found["extract"] or {}
    return found


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    results, readme = (argv + ["benchmarks/results", "docs/RESULTS.md"][len(argv):])[:2]
    target = ReadmeBlock(readme, "bench")  # checked before anything is read or written
    target.fill(block(**read_results(results)))
    print(f"benchmark block of {readme} updated")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
