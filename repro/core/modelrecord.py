"""The model record: learned weights and how they were made (paper, section 5.2), one type for all.

:func:`repro.core.fit.fit` returns a :class:`ModelRecord`; ``experiments/train_weights.py`` writes it
as a model file (:func:`repro.io.store.save_model`, the arrays of :meth:`ModelRecord.arrays`), every
reader gets it back from :func:`repro.io.store.load_model` (``experiments/ship_weights.py``, the
tables, the scores, ``--kappa-from``), an encoder file embeds it (:meth:`repro.encode.encoder.Encoder.save`),
and :meth:`ModelRecord.summary` is its plain JSON view (``results/table*.json``, an encoder's
``.json``). :func:`check_kappa` is the one rule that ties a loss to its kappa and the kappa's source.

==================  ==============================================  ==================================
field               what                                            model file key(s), in file order
==================  ==============================================  ==================================
weights             (n_max,) float32 learned weights                ``weights``
history, etas       (epochs,) mean L_total and learning rate        ``history``, ``etas``
                    of every epoch of the final run (Algorithm 1)
epochs              epochs of the final run                         ``epochs``
loss                "median" (eq. 8) or "contrastive" (eq. 5)       ``loss``
kappa_source        :data:`KAPPA_SOURCES`                           ``kappa_source``
lam, distance       the L2 strength lambda; the training distance   ``lam``, ``distance``
seed                the seed of the folds and of every batch draw   ``seed``
train_pairs         training couples                                ``train_pairs``
seconds             wall time: "prepare", "kappa_cv", "train"       ``prepare_seconds``, ``cv_seconds``,
                    (the only fields that differ run to run)        ``train_seconds``
batch_related       couples of each class per batch                 ``batch_related``
kappa_model, ..     the model file kappa came from ("model")        ``kappa_model``, ``kappa_model_sha256``
cv                  the kappa search (:class:`CVRecord`)            ``cv_grid``, ``cv_errors``,
                                                                    ``cv_epochs``, ``cv_folds``,
                                                                    ``cv_extended`` (where any)
kappa               the median loss's kappa; None (no key)          ``kappa``
                    for the contrastive loss
==================  ==============================================  ==================================

The optional fields (from ``seed`` on) are None, or absent from the file, when not recorded.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, NamedTuple

from repro import settings
from repro.checks import check_weights

if TYPE_CHECKING:
    import numpy as np

KAPPA_SOURCES = ("cv", "given", "model", "none")
"""Where a model's kappa came from: "cv" (the cross-validated grid search), "given" (a value
the caller chose), "model" (another model's file, named beside it), "none" (the contrastive
loss, which has no kappa)."""


def check_kappa(loss: str, kappa=None, source: str | None = None) -> float | None:
    """The one rule of a loss, its kappa and where kappa came from: ``loss`` is one of
    :data:`repro.settings.LOSSES`; the median loss (eq. 8) has a positive finite kappa from
    "cv", "given" or "model"; the contrastive loss (eq. 5) has none (kappa None, source "none").
    ``source=None`` checks the loss and kappa only. Returns kappa as a float (None for the
    contrastive loss); ``ValueError`` naming the argument and the cause otherwise."""
    if loss not in settings.LOSSES:
        raise ValueError(f"loss must be one of {', '.join(settings.LOSSES)}, got {loss!r}")
    if source is not None and source not in KAPPA_SOURCES:
        raise ValueError(f"kappa_source must be one of {', '.join(KAPPA_SOURCES)}, got {source!r}")
    if loss == "contrastive":
        if kappa is not None:
            raise ValueError("kappa: the contrastive loss has no kappa")
        if source not in (None, "none"):
            raise ValueError(f"kappa_source: the contrastive loss has no kappa, so its source is 'none', not {source!r}")
        return None
    if source == "none":
        raise ValueError("kappa_source: 'none' is the contrastive loss's; the median loss's kappa comes from "
                         "'cv', 'given' or 'model'")
    try:
        value = float(kappa)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"kappa must be a positive number for the median loss, got {kappa}")
    return value


class CVRecord(NamedTuple):
    """The kappa search of a model (:func:`repro.core.crossval.select_kappa`), as its file keeps it."""

    grid: np.ndarray  # (K,) kappa values tried
    errors: np.ndarray  # (K, F) held-out optimal split error per kappa and fold
    epochs: np.ndarray  # (K, F) epochs Algorithm 1 ran
    folds: str | None  # "couples" (folds of single couples) or "grouped" (whole clusters)
    extended: np.ndarray | None = None  # the kappas tried beyond the grid's edges (in ``grid`` too), in order

    @property
    def flat(self) -> bool:
        """Whether the search could not tell the kappas apart: the spread of the mean held-out
        errors over every kappa tried is within the fold spread (the standard deviation of the
        winner's fold errors), so kappa is effectively undetermined."""
        import numpy as np

        mean = self.errors.mean(axis=1)
        spread = self.errors[int(np.argmin(mean))].std(ddof=1) if self.errors.shape[1] > 1 else 0.0
        return bool(mean.max() - mean.min() <= spread)


#: The keys every model file holds (older ones may lack the optional fields).
REQUIRED_KEYS = ("weights", "history", "etas", "epochs", "loss", "kappa_source", "lam", "distance")
#: ``seconds`` keys and their file keys, in file order.
SECONDS_KEYS = (("prepare", "prepare_seconds"), ("kappa_cv", "cv_seconds"), ("train", "train_seconds"))


@dataclasses.dataclass(frozen=True, eq=False)
class ModelRecord:
    """Learned weights and how they were made; checked when made (:func:`check_kappa`, finite
    1-D weights). ``dataclasses.replace`` gives a changed copy, checked again.

    Attributes:
      weights: (n_max,) float32 learned weights, one per idf rank (eq. 3).
      history: (epochs,) mean training loss of every epoch (Algorithm 1).
      etas: (epochs,) learning rate of every epoch (its drops, Algorithm 1).
      epochs: the epochs run; loss: "median" or "contrastive"; kappa, kappa_source: the median
        loss's kappa and where it came from; lam: the L2 penalty; distance: the training distance.
      cv: the kappa search's record (its errors per kappa), when it ran.
    """

    weights: np.ndarray
    history: np.ndarray
    etas: np.ndarray
    epochs: int
    loss: str
    kappa: float | None
    kappa_source: str
    lam: float
    distance: str
    seed: int | None = None
    train_pairs: int | None = None
    seconds: dict = dataclasses.field(default_factory=dict)
    batch_related: int | None = None
    kappa_model: str | None = None
    kappa_model_sha256: str | None = None
    cv: CVRecord | None = None

    def __post_init__(self):
        import numpy as np

        set_ = object.__setattr__  # frozen: the checked values replace the given ones once, here
        set_(self, "weights", check_weights(self.weights, "weights").astype(np.float32))
        set_(self, "kappa", check_kappa(self.loss, self.kappa, self.kappa_source))
        unknown = set(self.seconds) - {k for k, _ in SECONDS_KEYS}
        if unknown:
            raise ValueError(f"seconds: unknown step(s) {', '.join(sorted(unknown))}")

    @property
    def final_mean_loss(self) -> float:
        """The mean L_total of the last epoch of the final run."""
        return float(self.history[-1])

    # ---- the model file -----------------------------------------------------------------------

    def arrays(self) -> dict:
        """The model file's arrays (:func:`repro.io.store.save_model`), in the file's order."""
        import numpy as np

        out = {"weights": self.weights, "history": self.history, "etas": self.etas, "epochs": int(self.epochs),
               "loss": self.loss, "kappa_source": self.kappa_source, "lam": float(self.lam), "distance": self.distance}
        if self.seed is not None:
            out["seed"] = int(self.seed)
        if self.train_pairs is not None:
            out["train_pairs"] = int(self.train_pairs)
        out.update({key: float(self.seconds[step]) for step, key in SECONDS_KEYS if step in self.seconds})
        if self.batch_related is not None:
            out["batch_related"] = int(self.batch_related)
        if self.kappa_model is not None:
            out.update(kappa_model=str(self.kappa_model), kappa_model_sha256=str(self.kappa_model_sha256))
        if self.cv is not None:
            out.update(cv_grid=self.cv.grid, cv_errors=self.cv.errors, cv_epochs=self.cv.epochs)
            if self.cv.folds is not None:
                out["cv_folds"] = self.cv.folds
            if self.cv.extended is not None and len(self.cv.extended):
                out["cv_extended"] = np.asarray(self.cv.extended, np.float64)
        if self.kappa is not None:
            out["kappa"] = float(self.kappa)
        return out

    @classmethod
    def from_arrays(cls, z: dict) -> "ModelRecord":
        """The record of a model file's arrays (:meth:`arrays`); ``ValueError`` when a required key
        is missing or the values break the record's rules."""
        import numpy as np

        missing = [k for k in REQUIRED_KEYS if k not in z]
        if missing:
            raise ValueError(f"not a model record (missing {', '.join(missing)})")
        if "kappa" in z and np.ndim(z["kappa"]) != 0:
            raise ValueError(f"kappa must be one number, got an array of shape {np.shape(z['kappa'])}")

        def opt(key, cast):
            return cast(z[key]) if key in z else None

        cv = None
        if "cv_grid" in z:
            cv = CVRecord(z["cv_grid"], z["cv_errors"], z["cv_epochs"], opt("cv_folds", str), opt("cv_extended", np.asarray))
        return cls(z["weights"], z["history"], z["etas"], int(z["epochs"]), str(z["loss"]), opt("kappa", float),
                   str(z["kappa_source"]), float(z["lam"]), str(z["distance"]), seed=opt("seed", int),
                   train_pairs=opt("train_pairs", int),
                   seconds={step: float(z[key]) for step, key in SECONDS_KEYS if key in z},
                   batch_related=opt("batch_related", int), kappa_model=opt("kappa_model", str),
                   kappa_model_sha256=opt("kappa_model_sha256", str), cv=cv)

    # ---- the JSON view --------------------------------------------------------------------------

    def summary(self) -> dict:
        """The record as plain JSON values, as ``results/table*.json`` and an encoder's ``.json``
        show it: the weights, the last epoch's mean loss, the mean held-out error of every kappa
        tried (not the history, the per-fold errors or the epochs of the search)."""
        out = {
            "loss": self.loss, "kappa": self.kappa, "kappa_source": self.kappa_source, "epochs": int(self.epochs),
            "final_mean_loss": self.final_mean_loss, "weights": self.weights.tolist(),
            "train_pairs": self.train_pairs, "lambda": float(self.lam), "distance": self.distance,
            "seconds": {step: float(self.seconds[step]) for step, _ in SECONDS_KEYS if step in self.seconds},
        }
        if self.kappa_model is not None:
            out["kappa_model"] = self.kappa_model
        if self.cv is not None and self.cv.folds is not None:
            out["cv_folds"] = self.cv.folds
        if self.batch_related is not None:
            out["batch_related"] = int(self.batch_related)
        if self.cv is not None:
            out.update(cv_grid=self.cv.grid.tolist(), cv_mean_errors=self.cv.errors.mean(axis=1).tolist(),
                       cv_extended=[] if self.cv.extended is None else [float(k) for k in self.cv.extended],
                       cv_flat=self.cv.flat)
        return out
