"""Strategy headers (placeholder until implemented)."""
