"""The one registry of the experiments: settings, methods, and the paper's reported tables.

Every script, the Makefile's targets and the reports read these names from here, so a new
setting (Twitter, Table 2) or method is one entry, not a change in six files.

Settings (paper, section 4 and Table 1's columns):

=========  ======================================  =====  =====  =========  ===============
name       title                                   n      width  n_max      couples from
=========  ======================================  =====  =====  =========  ===============
wiki20     Wikipedia, 20 words                     20     20     20         itself
wikivar    Wikipedia, variable length              10-30  30     30         itself
other      Other vectors, variable length          10-30  30     30         ``wikivar``
twitter_n  Twitter, news accounts (Table 2)         any    >= 35  35         itself (tweets)
twitter_r  Twitter, news, no manual RTs (Table 2)  any    >= 35  35         itself (tweets)
twitter    Twitter, all sources (Table 2)          any    >= 35  35         itself (tweets)
=========  ======================================  =====  =====  =========  ===============

``twitter_news`` (``twitter_n`` above) is the paper's setting: tweets of news organisations
only (the accounts of ``experiments/news_accounts.txt``); ``twitter_news_nort`` (``twitter_r``)
is the same without manual retweets ("RT @user: ...", ``repro tweets --drop-manual-retweets``),
which the authors' code kept; ``twitter`` takes every tweet of the sources. The Makefile gives
each column its ``repro tweets`` options.

``other`` has no couples or weights of its own: it re-scores the ``wikivar`` couples with
other word vectors under the ``wikivar`` weights, without retraining (paper, section 5.3).
"""

from __future__ import annotations

from typing import NamedTuple

#: The paper's number of weights for texts of up to 30 words (section 3.3; the variable-length
#: settings' n_max): :class:`repro.encode.encoder.Encoder`'s and ``repro train``'s default.
N_MAX = 30


class Setting(NamedTuple):
    name: str
    title: str  # column title in the tables
    min_n: int  # shortest text, in in-vocabulary words
    max_n: int  # longest text
    width: int  # columns of the token rows
    n_max: int  # number of learned weights
    source: str  # the setting whose couples and weights it uses (itself, or another)
    vectors: str = "corpus"  # "corpus": the Wikipedia corpus's word2vec; "other": other word vectors
    table: int = 1  # the paper's table it belongs to
    corpus: str = "wikipedia"  # where the couples come from

    @property
    def trains(self) -> bool:
        """Whether weights are learned on this setting's own couples."""
        return self.source == self.name


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("wiki20", "Wikipedia, 20 words", 20, 20, 20, 20, "wiki20"),
    Setting("wikivar", "Wikipedia, variable length", 10, 30, 30, N_MAX, "wikivar"),
    Setting("other", "Other vectors, variable length", 10, 30, 30, N_MAX, "wikivar", vectors="other"),
    # tweets keep every in-vocabulary word; rows are at least n_max = 35 wide (the code's NN_train_8)
    Setting("twitter_news", "Twitter, news accounts", 1, 35, 35, 35, "twitter_news", table=2, corpus="twitter"),
    Setting("twitter_news_nort", "Twitter, news accounts, no manual retweets", 1, 35, 35, 35, "twitter_news_nort",
            table=2, corpus="twitter"),
    Setting("twitter", "Twitter, all sources", 1, 35, 35, 35, "twitter", table=2, corpus="twitter"),
)}

#: Settings with couples and weights of their own, in the tables' order.
PAIR_SETTINGS = tuple(s.name for s in SETTINGS.values() if s.trains)
#: Settings whose couples are tweets (``python -m repro tweets`` and ``tweetsets``).
TWITTER_SETTINGS = tuple(s.name for s in SETTINGS.values() if s.corpus == "twitter")
#: Settings whose couples are Wikipedia windows (``python -m repro pairs``).
WIKI_SETTINGS = tuple(s.name for s in SETTINGS.values() if s.trains and s.corpus == "wikipedia")
#: Columns of each of the paper's tables.
TABLE_SETTINGS = {t: tuple(s.name for s in SETTINGS.values() if s.table == t) for t in (1, 2)}

SPLITS = ("train", "validation", "test")
#: The losses of section 3: "contrastive" (eq. 5) and "median" (eq. 8, with its kappa); every
#: check of a loss name (:func:`repro.core.modelrecord.check_kappa`) reads them from here.
LOSSES = ("contrastive", "median")

#: The median loss's kappa (eq. 8) is chosen from this grid by five-fold cross-validation on the
#: training split (paper, section 5.2: "cross-validation and grid search"; 10, 20, ..., 5120,
#: which holds the original code's 160). The one default of kappa: every caller of
#: :func:`repro.core.fit.fit` takes it from here.
KAPPA_GRID = tuple(10.0 * 2.0**k for k in range(10))


def setting(name: str) -> Setting:
    """The setting called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return SETTINGS[name]
    except KeyError:
        raise ValueError(f"setting: unknown {name!r}; expected one of {', '.join(SETTINGS)}") from None


# ---- methods: the rows of Tables 1 and 2, in the paper's order -------------------------------

LABELS = {
    "tfidf": "Tf-idf",
    "mean": "Mean",
    "max": "Max",
    "minmax": "Min/max",
    "mean_top30": "Mean, top 30% idf",
    "max_top30": "Max, top 30% idf",
    "minmax_top30": "Min/max, top 30% idf",
    "mean_idf": "Mean, idf-weighted",
    "learned_contrastive": "Learned weights, contrastive",
    "learned_median": "Learned weights, median",
    "sif": "SIF (peer, not in the paper)",
    "usif": "uSIF (peer, not in the paper)",
    "zipf": "Zipfian whitening (peer, not in the paper)",
    "uwhiten": "Uniform whitening (peer, not in the paper)",
    "wordllama": "WordLlama (peer, static token embeddings; not in the paper)",
    "peer_best": "Peers, best configuration (validation; not in the paper)",
    "learned_median_cc": "Learned weights, median, common components removed (not in the paper)",
    "learned_best": "Learned weights, best transform (validation; not in the paper)",
}
METHODS = tuple(LABELS)
BASELINES = METHODS[:8]  # section 5.1, computed by repro.core.baselines
LEARNED = tuple(f"learned_{loss}" for loss in LOSSES)  # sections 3 and 5.2
PEERS = ("sif", "usif", "zipf", "uwhiten")  # what users compare with (repro.evaluate.peers), not in the paper
#: Peers on a static token space (repro.evaluate.tokentables, experiments/score_tokens.py): WordLlama's own mean pooling.
TOKEN_PEERS = ("wordllama",)
#: The peer family's row (repro.evaluate.peerfamily): per column and metric, the configuration (word weighting,
#: word map, common components) of the lowest validation split error, searched as widely as ours.
PEER_FAMILY = ("peer_best",)
#: The rows ours are compared with: the peers, one by one and as a family.
RIVALS = PEERS + TOKEN_PEERS + PEER_FAMILY
BEYOND = ("learned_median_cc",)  # the learned weights with the peers' common-component removal
#: The learned family's row (repro.evaluate.family): per column and metric, the member (a fixed word map and
#: a training distance) of the lowest validation split error.
FAMILY = ("learned_best",)
#: The rows that are ours (the paper's learned weights and what this project adds to them): each
#: is compared with the best peer.
OURS = LEARNED + BEYOND + FAMILY
#: The tables' metrics (:mod:`repro.core.textmetric`): ``euclidean``, the paper's protocol (minus the
#: Euclidean distance for every row, except tf-idf, which the paper scores by the cosine: its
#: :data:`OWN_METRIC`), and ``cosine`` for every row. Every row is scored under both.
TABLE_METRICS = ("euclidean", "cosine")
#: Rows whose own convention the Euclidean (paper's) table keeps.
OWN_METRIC = {"tfidf": "cosine"}


def row_metric(method: str, table_metric: str) -> str:
    """The metric row ``method`` is scored by in the table of ``table_metric``."""
    return OWN_METRIC.get(method, table_metric) if table_metric == "euclidean" else table_metric


def family_method(member: str) -> str:
    """The method name under which a score file holds one member of the learned family (``<map>-<distance>``)."""
    return f"family:{member}"


def score_key(split: str, method: str, metric: str) -> str:
    """The key of a score file (:func:`repro.io.store.save_scores`) holding ``method``'s scores of the
    ``split`` couples under ``metric``."""
    return f"{split}_{method}@{metric}"


#: Row groups, separated by rules in the LaTeX table as in the paper (not in the paper: last).
GROUPS = (("tfidf",), ("mean", "max", "minmax"), ("mean_top30", "max_top30", "minmax_top30", "mean_idf"), LEARNED,
          RIVALS + BEYOND + FAMILY)


# ---- what the paper reports --------------------------------------------------------------------

#: Table 1: (split error as a fraction, JS divergence) per method and setting. The paper's
#: ``other`` column is Google News word2vec vectors (300 d).
PAPER_TABLE1 = {
    "tfidf": {"wiki20": (0.1960, 0.3698), "wikivar": (0.2223, 0.3190), "other": (0.2250, 0.3130)},
    "mean": {"wiki20": (0.1943, 0.3781), "wikivar": (0.2561, 0.2543), "other": (0.3441, 0.1130)},
    "max": {"wiki20": (0.1905, 0.3981), "wikivar": (0.2709, 0.2308), "other": (0.3705, 0.0842)},
    "minmax": {"wiki20": (0.1678, 0.4520), "wikivar": (0.2619, 0.2487), "other": (0.3582, 0.1032)},
    "mean_top30": {"wiki20": (0.1702, 0.4435), "wikivar": (0.2267, 0.3182), "other": (0.3207, 0.1512)},
    "max_top30": {"wiki20": (0.1805, 0.4193), "wikivar": (0.2832, 0.2150), "other": (0.3638, 0.0999)},
    "minmax_top30": {"wiki20": (0.1640, 0.4581), "wikivar": (0.2786, 0.2260), "other": (0.3561, 0.1140)},
    "mean_idf": {"wiki20": (0.2400, 0.2767), "wikivar": (0.2751, 0.2139), "other": (0.3388, 0.1185)},
    "learned_contrastive": {"wiki20": (0.1444, 0.5080), "wikivar": (0.2120, 0.3503), "other": (0.3050, 0.1776)},
    "learned_median": {"wiki20": (0.1406, 0.5184), "wikivar": (0.1641, 0.4602), "other": (0.2510, 0.2641)},
}

#: Table 2 (Twitter, Wikipedia embeddings): (split error, JS divergence) per method, on tweets
#: of news agencies (the ``twitter_news`` setting).
PAPER_TABLE2 = {m: {"twitter_news": v} for m, v in {
    "tfidf": (0.4309, 0.0634),
    "mean": (0.3368, 0.0783),
    "max": (0.3485, 0.0668),
    "minmax": (0.3380, 0.0734),
    "mean_top30": (0.3260, 0.0811),
    "max_top30": (0.3338, 0.0740),
    "minmax_top30": (0.3286, 0.0762),
    "mean_idf": (0.3128, 0.0886),
    "learned_contrastive": (0.3548, 0.0658),
    "learned_median": (0.3088, 0.0900),
}.items()}
PAPER_TABLES = {1: PAPER_TABLE1, 2: PAPER_TABLE2}
