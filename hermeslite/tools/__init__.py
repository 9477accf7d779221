"""Tools the model can call: the registry, terminal, files, search, memory, todo, recall, and the approval gate."""
