"""Aggregation (lazy polars), figures (matplotlib) and the HTML report."""
