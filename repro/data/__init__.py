"""The corpus chain: from raw sources to couples of texts."""
