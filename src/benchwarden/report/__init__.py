"""Reports: summaries of results and renderers (one table model for terminal, Markdown and HTML)."""
