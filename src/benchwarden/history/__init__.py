"""History: a benchmark's series per machine in commit order, and the change points found in it (docs/history.md).

:mod:`.changepoints` is the pure statistics (arrays of log fork summaries in, frozen results out);
:mod:`.series` builds the series from the store; :mod:`.gitlog` reads each commit's place in history from git.
"""
