"""Strategy tokens (placeholder until implemented)."""
