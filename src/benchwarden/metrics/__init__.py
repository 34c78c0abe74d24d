"""Metrics beside wall time: what each one is (unit, direction, how it is judged) and how it is measured.

* :mod:`.catalog` — the metrics benchwarden knows, and the mapping from the labels harnesses give
  them (Go's ``B/op``, JMH's ``gc.alloc.rate.norm [B/op]``, ...) to those definitions;
* :mod:`.primary` — the primary metric of a run (``time``, ``cpu``, ``instructions``): which value
  ``value_ns`` holds and in which unit;
* :mod:`.twopoint` — the two-point estimate of a per-operation cost from two executions;
* :mod:`.valgrind` — instruction counts from Valgrind's cachegrind.

Docs: docs/metrics.md.  Imports only :mod:`benchwarden.model` and :mod:`benchwarden.errors`.
"""
