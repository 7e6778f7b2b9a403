"""Progress bars of the user-facing commands: one per step, only for steps that take a while.

The rules (docs/ENCODING.md, "Progress bars"), all here so that every step follows them:

* a bar is drawn only after the step has run for :data:`DELAY` seconds (tqdm's ``delay``), so a
  short step prints nothing at all;
* one bar per step, named after it, left on its own line when the step ends, so two steps never
  share a line;
* only on a terminal (tqdm's ``disable=None``): a log file or a pipe gets no bars;
* ``show=False`` (the commands' ``--quiet``) silences it.

A caller that knows the step is too small to report (one chunk of texts, say) passes ``show=False``.
"""

from __future__ import annotations

#: Seconds a step runs before its bar appears.
DELAY = 1.0


def bar(total: int | None, desc: str, *, unit: str = "it", unit_scale: bool = False, show: bool = True, file=None):
    """A tqdm bar for one step: drawn after :data:`DELAY` s, on a terminal only, unless ``show`` is
    False (then a bar that draws nothing, without importing tqdm: a few hundredths of a second of
    a command-line call on a few texts)."""
    if not show:
        return Silent()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale, delay=DELAY, leave=True,
                dynamic_ncols=True, disable=None if show else True, file=file)


class Silent:
    """A bar that shows nothing: the part of tqdm's interface the steps use (``update``, ``close``,
    a ``with`` block)."""

    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        pass

    def __enter__(self) -> "Silent":
        return self

    def __exit__(self, *exc) -> None:
        pass
