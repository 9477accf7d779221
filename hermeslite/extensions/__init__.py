"""What users add to hermeslite without code: custom command files and skills (SKILL.md).

Both are Markdown files with optional YAML front matter, read once when a
session starts, from the project (`.hermeslite/...`, and `.agents/skills`,
the folder other agents share skills in) and from the user's config
directory. This package only finds, reads and checks them; it imports
nothing of hermeslite but `paths`, so the agent (skills) and the front ends
(commands) can both use it. A file that cannot be used is one line saying
which and why, and everything else still loads.
"""
