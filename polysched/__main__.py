import sys

from polysched.cli import main

sys.exit(main())
