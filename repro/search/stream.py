"""Related texts as a stream arrives: each new text's earlier texts that score at least a threshold
within a window, the last ``count`` texts or those of the last ``span`` seconds (beyond the paper;
issue 58; the paper's Twitter couples are tweets at most 15 minutes apart, section 4.2).

Only the window is held: its vectors, ids and times. The texts come in batches; a batch is scored
against the window and against itself (each text against the texts before it), by float32 matrix
products, and every couple whose float32 score reaches the threshold less the bound on float32
rounding (:mod:`repro.search.neighbours`) is scored exactly (float64,
:func:`repro.core.textmetric.vector_scores`): the result is exact, the couples the exact scan of
every earlier text in the window would give, whatever the batch size.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from repro.errors import InputError
from repro.search.cellsearch import threshold_bound
from repro.search.dedup import check_threshold
from repro.search.neighbours import block_scores, down32, exact, left_operand, norms, operand, rounding_bound


#: window columns scored at once (bounds the memory of a batch against a large window)
COLUMNS = 16384


class Related(NamedTuple):
    """A batch's couples: stream positions (from 0, the order texts arrived) of the new text and of
    the earlier one, their exact float64 score, and their ids."""
    new: np.ndarray
    earlier: np.ndarray
    score: np.ndarray
    new_ids: list
    earlier_ids: list


class Window:
    """The last texts of a stream (their vectors, ids and times) and the rule of what is earlier
    and near enough: ``count`` texts, or ``span`` seconds (the texts' times must not decrease)."""

    def __init__(self, dim: int, threshold: float, metric: str = "cosine", *, count: int | None = None,
                 span: float | None = None):
        if (count is None) == (span is None):
            raise InputError("window", "give a count of texts or a time span, one of the two")
        if count is not None and count < 1:
            raise InputError("--window", f"must be at least 1 text, got {count}")
        if span is not None and not span >= 0:
            raise InputError("--minutes", f"must be at least 0, got {span}")
        self.t = check_threshold(threshold, metric)
        self.metric, self.count, self.span = metric, count, span
        self.x = np.zeros((0, dim), np.float32)
        self.norms = np.zeros(0)  # the window's lengths and float32 operands, kept from batch to batch
        self.op = np.zeros((0, dim), np.float32)
        self.ids: list = []
        self.times = np.zeros(0)
        self.seen = 0  # texts so far: the stream position of the window's first one is seen - len(x)

    def push(self, x, ids: list, times=None) -> "Related":
        """Add a batch (``x`` (B, d), its ids, and (B,) times in seconds under a span) and return its
        couples with earlier texts of the window (:class:`Related`), sorted by (new, earlier)."""
        x = np.asarray(x, np.float32)
        b = len(x)
        if self.span is not None:
            if times is None:
                raise InputError("time", "a time span needs a time on every text")
            times = np.asarray(times, np.float64)
            last = self.times[-1] if self.times.size else -np.inf
            steps = np.diff(np.concatenate([[last], times]))
            if (steps < 0).any():
                bad = int(np.argmax(steps < 0))
                raise InputError("time", f"text {self.seen + bad}: its time is before the text's before it "
                                         "(a stream's times must not decrease)")
        every = np.concatenate([self.x, x])
        first = self.seen - len(self.x)  # stream position of every[0]
        q_norms = norms(x, "vectors")
        e_norms = np.concatenate([self.norms, q_norms])
        e_op = np.concatenate([self.op, operand(x, q_norms, self.metric)])
        left = left_operand(x, q_norms, self.metric)
        bound = down32(threshold_bound(q_norms, self.t, self.metric) - rounding_bound(
            q_norms, e_norms.max(initial=0), x.shape[1], self.metric))
        pos_new = self.seen + np.arange(b)
        t_all = None if self.span is None else np.concatenate([self.times, times])
        found_r, found_c = [], []
        for c0 in range(0, len(every), COLUMNS):
            cols = slice(c0, c0 + COLUMNS)
            s = block_scores(left, e_op[cols], e_norms[cols], self.metric)
            flat = np.flatnonzero(s >= bound[:, None])  # few: the window's rule is applied to them only
            r, c = flat // s.shape[1], c0 + flat % s.shape[1]
            pos_r, pos_c = pos_new[r], first + c
            ok = pos_c < pos_r
            if self.count is not None:
                ok &= pos_c >= pos_r - self.count
            else:
                ok &= t_all[c] >= times[r] - self.span
            found_r.append(r[ok])
            found_c.append(c[ok])
        r, c = np.concatenate(found_r), np.concatenate(found_c)
        sc = exact(x, r, every, c, self.metric) if r.size else np.zeros(0)
        keep = sc >= self.t
        r, c, sc = r[keep], c[keep], sc[keep]
        all_ids = self.ids + list(ids)
        out = Related(pos_new[r], first + c, sc, [all_ids[len(self.x) + i] for i in r.tolist()],
                      [all_ids[i] for i in c.tolist()])
        self._slide(every, e_norms, e_op, all_ids, t_all)
        return out

    def _slide(self, every, e_norms, e_op, all_ids: list, t_all) -> None:
        """The window after a batch (``every``: the window and the batch, with their lengths, operands,
        ids and times): the last ``count`` texts, or those within the span of the last time."""
        self.seen += len(every) - len(self.x)
        if self.count is not None:
            keep = max(0, len(every) - self.count)
        else:
            keep = int(np.searchsorted(t_all, t_all[-1] - self.span, side="left")) if t_all.size else 0
            self.times = t_all[keep:]
        self.x = np.ascontiguousarray(every[keep:])
        self.norms, self.op = e_norms[keep:], np.ascontiguousarray(e_op[keep:])
        self.ids = all_ids[keep:]

