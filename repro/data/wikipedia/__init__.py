"""The Wikipedia chain (paper, section 4.1): dump -> paragraphs -> word2vec -> df -> couples."""
