"""The faces over the memory surface (hmem/surface.py): the HTTP client (``client``) and
the MCP server (``mcp_server``). Each takes any object of the surface, so it works over an
embedded ``Memory`` or a remote ``Client`` alike."""
