"""Project test configuration: Hypothesis profiles come from one place; child interpreters cache bytecode.

The tests start several hundred Python processes (served backends, conformance runs, workers); each one
compiles and assert-rewrites the project's modules again when bytecode caching is off
(``PYTHONDONTWRITEBYTECODE``), so the variable is removed for the processes the tests start.
"""

import os

from strategies.profiles import register_profiles

register_profiles()
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
