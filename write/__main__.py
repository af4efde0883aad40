import os
import signal
import sys

from write.command import main

code = main()
# Leave without tearing the interpreter down, as grader/__main__.py does:
# after a Ctrl-C, a second interrupt or a finalizer interrupted during torch's
# teardown could still end the process by SIGINT (exit -2) after it has
# said "interrupted" and chosen 130. Everything that matters is written.
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
