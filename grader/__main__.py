import os
import sys

from grader.cli import main

code = main()
# Leave without tearing the interpreter down: with torch loaded that takes a
# noticeable part of a second, and everything that matters is written already.
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
