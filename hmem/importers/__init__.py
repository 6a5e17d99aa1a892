"""Bringing memories in from other systems (graphiti)."""
