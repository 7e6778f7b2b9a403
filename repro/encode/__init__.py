"""Texts to vectors for users: the Encoder and its parts (its word space, its file, the shipped
weights, the weighted-sum kernel, long texts, warnings), neighbours and near-duplicates.
"""
