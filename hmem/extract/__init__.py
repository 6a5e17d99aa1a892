"""Turning conversations into facts: write policy, extractor prompts, model clients."""
