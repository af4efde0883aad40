"""``python -m write``: train a small GPT built from the student's own
exercises on the Chinese text of this course's pages, and let it write.

One module per concept: ``corpus`` (the text, made from docs/), ``student``
(the model from the student's files), ``training`` (the loop and sampling),
``verdict`` (the grader's line and the look-ahead probe), ``plot`` (the loss
curves, labelled in Chinese and English), ``command`` (the command line).
"""
