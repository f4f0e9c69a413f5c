"""python -m optalloc: see optalloc.cli."""

import sys

from .cli import main

sys.exit(main())
