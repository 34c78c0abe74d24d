"""Code-level performance (issue #16): which methods a change touches and which benchmarks reach them."""
