"""Time read from plain text: dates (``dates``) and changes (``changes``) a write's
words state, for callers that hand hmem a sentence and nothing else."""
