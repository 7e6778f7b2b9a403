"""The numbers the paper reports (Table 1 and Table 2), to print beside ours.

Split errors as fractions, JS divergences as printed. Columns of Table 1: ``wiki20``
(Wikipedia, 20 words), ``wikivar`` (variable length), ``other`` (Google News vectors,
variable length, weights not retrained).
"""

TABLE1 = {
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
