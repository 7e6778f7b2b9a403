"""Files: every format's checked loader and atomic writer, the data folder's layout, provenance,
generated Markdown blocks, word vectors in text files, and the cache folder beside the vectors.
"""
