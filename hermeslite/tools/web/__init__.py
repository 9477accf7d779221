"""The web_fetch tool: one http(s) page, checked, converted to Markdown, archived when long."""
