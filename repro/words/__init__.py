"""Words and their counts: tokenising, document frequencies and idf (eq. 1), the idf-sorted
vocabulary and its word -> rank lookup, word frequencies without a corpus.
"""
