"""Suite assessment (``benchwarden assess``): variability across runs and the API benchmarking score (ABS).

Method: Laaber & Leitner, "An Evaluation of Open-Source Software Microbenchmark Suites for Continuous
Performance Assessment", MSR 2018 (digest: shared/research/seed-003-laaber-abs.md). Pure parts (one
concept per module): :mod:`.variability` (maxSpread, CV, RCIW, buckets, v), :mod:`.detect` (the
detection rule), :mod:`.score` (ABS variants, redundancy), :mod:`.smoke` (CI subset), :mod:`.stubs`
(benchmark stubs), :mod:`.methods` (K′). Processes: :mod:`.inject` (slowdown/trace per language),
:mod:`.helpers` (building the Java agent and the Go rewriter), :mod:`.reach` (which benchmark reaches
which method, and the cost account), :mod:`.campaign` (the runs). docs/assess.md explains it all.
"""
