"""Search at scale: exact scans, the cell index, the persistent index folder, the dedup rules and
the stream of related texts, all on text vectors (beyond the paper; issue 58)."""
