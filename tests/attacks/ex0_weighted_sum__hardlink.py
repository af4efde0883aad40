"""Attack: the exercise file is a hard link to the reference solution.

test_attacks.py does not use this text: it puts a hard link to the project's
solutions/ex0_weighted_sum.py in the submission instead (as a student with an
account on the grading machine could). Read through the link, the file is
the reference itself; the grader refuses a submitted file that is one of its
own solution or check files (the same device and inode), so it earns 0.
"""
