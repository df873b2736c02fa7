"""`python -m generator` is the `errorsite` command."""

import sys

from .cli import main

sys.exit(main())
