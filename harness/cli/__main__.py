"""``python -m harness.cli``: the ``vnext-conformance`` command line."""

import sys

from harness.cli import main

sys.exit(main())
