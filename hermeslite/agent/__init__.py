"""The agent: the turn loop, compression triggers, memory flush, and the events front ends subscribe to."""
