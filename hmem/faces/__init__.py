"""The faces over the memory surface (hmem/surface.py): the HTTP client (``client``), the
MCP server (``mcp_server``) and the agent-framework adapters (``adapters``). Each takes any
object of the surface, so it works over an embedded ``Memory`` or a remote ``Client`` alike."""
