"""Benchmarks and scale measurements (make bench, bench-gpu, scale, scale-gpu): run as ``python -m benchmarks.<name>`` from the repository root."""
