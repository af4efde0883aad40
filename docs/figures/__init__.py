"""One module per figure; each draw() returns a matplotlib Figure, or SVG text (see _ext/figure_gen.py)."""
