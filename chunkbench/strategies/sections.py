"""Strategy sections (placeholder until implemented)."""
