"""Word spaces: the vectors themselves, token spaces, fixed maps of the vectors (centring,
whitening, SIF weights), common components, and the cached mapped space.
"""
