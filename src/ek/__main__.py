"""``python -m ek`` runs the command line."""

import sys

from ek.cli import main

sys.exit(main())
