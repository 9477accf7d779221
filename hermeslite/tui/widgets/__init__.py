"""One widget per file; each knows how to draw one kind of thing and nothing about the agent."""
