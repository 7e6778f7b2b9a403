"""The corpus chain: from raw sources to couples of texts (paper, section 4)."""
