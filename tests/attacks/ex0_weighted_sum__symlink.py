"""Attack: the exercise file is a symbolic link to the reference solution.

test_attacks.py does not use this text: it puts a symlink to
solutions/ex0_weighted_sum.py in the submission instead. The grader refuses
symlinks (it reads with O_NOFOLLOW), so the correct code it points at earns 0.
"""
