"""Learned idf-rank weighted aggregation of word embeddings for very short texts.

A JAX implementation of De Boom, Van Canneyt, Demeester and Dhoedt, "Representation
learning for very short texts using weighted word embedding aggregation", Pattern
Recognition Letters, 2016.
"""

__version__ = "0.1.0"
