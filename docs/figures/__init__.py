"""One module per figure; each draw() returns a matplotlib Figure (see _ext/figure_gen.py)."""
