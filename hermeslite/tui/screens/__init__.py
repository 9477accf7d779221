"""Modal screens: tool approval, the session picker and a read-only text viewer."""
