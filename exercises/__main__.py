"""``python -m exercises``: the engine's command line (the same as ``grader exercises``)."""

import sys

from exercises.cli import main

sys.exit(main())
