"""HTML and terminal views of results, built only from the escaping functions of `safetext.py` (which holds them
all): evidence cards, the verdict card, error lines."""
