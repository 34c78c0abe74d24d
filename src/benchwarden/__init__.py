"""benchwarden: continuous microbenchmarking for JMH, Go, asv-format Python and command suites."""

__version__ = "0.1.0"
