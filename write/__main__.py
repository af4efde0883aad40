import sys

from write.command import main

sys.exit(main())
