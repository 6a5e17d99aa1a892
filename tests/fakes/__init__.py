"""Test doubles that run for real: an OpenAI-compatible HTTP server on loopback."""
