"""Scripts that turn the data chain into the paper's tables and figures (run by the Makefile).

Importing ``repro`` first sets its kernel pins (:mod:`repro.kernels`) before NumPy loads."""

import repro  # noqa: F401 - the kernel pins, before any script imports NumPy
