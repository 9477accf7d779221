"""The MCP client: servers from the `mcp_servers:` config become tools named mcp__<server>__<tool>.

config.py reads the block; manager.py runs the servers on a thread of their own
(connection.py is one server); adapter.py turns each server tool into a tool of
the registry, results.py its results into text; launcher.py is the small
process every stdio server starts through, so none outlives hermeslite.
Only manager.py's thread imports the MCP SDK (about 0.7 s), and only when a
server is configured.
"""
