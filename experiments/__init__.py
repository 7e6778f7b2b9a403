"""Scripts that turn the data chain into the paper's tables and figures (run by the Makefile)."""
