"""Which submissions share their code: fingerprints (tokenised, normalised, winnowed) of each submission's
own files, compared through an inverted index."""
