"""asv-format benchmarks of the wordstat example (run them with `benchwarden run` or `asv run`)."""
