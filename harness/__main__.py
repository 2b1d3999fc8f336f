"""``python -m harness``: the ``vnext-conformance`` command line."""

import sys

from harness.cli import main

sys.exit(main())
