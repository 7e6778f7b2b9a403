"""The STS Benchmark (not in the paper): its dataset, the setups of its spaces, its protocol
and the calibration of its frequencies.
"""
