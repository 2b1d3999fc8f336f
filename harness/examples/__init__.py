"""Starting points for a new backend: a protocol server in plain Python and a ``python:`` backend template."""
