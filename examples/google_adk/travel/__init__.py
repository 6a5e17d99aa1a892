from . import agent  # noqa: F401  (adk web finds root_agent here)
