"""Strategy elements (placeholder until implemented)."""
