"""Tools the model can call: the registry, terminal, files, search, and the approval gate."""
