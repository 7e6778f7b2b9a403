"""The tweet chain (paper, section 4.2): sources -> records -> cleaned tweets -> couples -> token rows."""
