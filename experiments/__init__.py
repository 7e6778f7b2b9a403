"""Scripts that turn the data chain into the paper's tables and figures (run by the Makefile).

Importing ``repro`` first sets its kernel pins (:mod:`repro.pins`) before NumPy loads. Where
NumPy came first anyway (a notebook that imports NumPy, then an experiment) and runs kernels the
pin turns off, a warning says so: the experiments' results are compared bit for bit with the
committed ones (the library itself only records it, in ``repro.pins.state``)."""

import repro  # noqa: F401 - the kernel pins, before any script imports NumPy
from repro import pins as _kernels

_kernels.warn_if_unpinned()
