"""Generated search at scale: example databases, example counts, fuzzing rounds and their control files.

``database`` names Hypothesis example databases by URL (a directory, ``redis://``), read-only or not;
``examples`` counts the examples each generated case executes and steers the search towards rule
coverage; ``rounds`` runs one generated case in rounds of Hypothesis runs until its share of the
time budget is spent; ``control`` is the file channel between a fuzzing controller and its workers
(stop requests, started cases, live counts). The pytest side is ``harness.plugin.fuzzing``.
"""
