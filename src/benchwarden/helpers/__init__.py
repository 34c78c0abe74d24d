"""benchwarden's own helper programs, built from sources that travel with the package: the Java agent and the Go
rewriter (`assess`'s slowdown injection and tracing), the JUnit launcher (unit tests as workloads) and the JMH
profiler (``metric = "cpu"`` for JMH suites).

:mod:`.sources` says which files each helper's build reads (the cache digest and the wheel use the same answer);
:mod:`.build` builds a helper on first use into the user's cache.
"""
