import sys

from repdl.cli import main

sys.exit(main())
