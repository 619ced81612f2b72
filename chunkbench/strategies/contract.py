"""Strategy contract (placeholder until implemented)."""
