"""Does a message ask for something only a tool can do? For models that cannot call tools.

The embedded model has no tools, and a 135M-parameter model asked to "list the
files in this directory" does not refuse: it invents a listing. Its system
prompt says it cannot see files, but so small a model does not reliably obey,
so the agent adds a line of its own to such a reply (see `TOOLS_HINT`).

The detector is deliberately conservative: a missed ask costs nothing more
than the model's own answer, while a hint under every "how do I list files in
bash?" would teach the user to ignore it. It fires on an action aimed at
something on this machine (this directory, my project, a file name), on a
request to run a command, and on "what is in foo.py"; a question about how
to do something is left alone.
"""

from __future__ import annotations

import re

TOOLS_HINT = (
    "The embedded model cannot run commands or read files, so it cannot see what you asked about and may "
    "make it up: `!ls` (or any command) runs it yourself and shows it the output; `hermeslite setup` "
    "connects a model that can use tools."
)

_EXTENSIONS = (
    "py|pyi|js|mjs|ts|tsx|jsx|md|rst|txt|json|jsonl|ya?ml|toml|cfg|ini|conf|env|sh|bash|zsh|rs|go|java|kt|"
    "c|h|cc|cpp|hpp|cs|rb|php|swift|html?|css|scss|csv|tsv|log|lock|sql|xml|ipynb|dockerfile|gradle|mk"
)
FILE_NAME = rf"(?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS})\b|\b(?:Makefile|Dockerfile|README|LICENSE|CHANGELOG)\b"

_ACTION = (
    r"list|show|read|open|cat|print|display|view|inspect|look\s+(?:at|in|into|through)|check|scan|"
    r"edit|modify|change|update|write|create|make|delete|remove|rename|move|copy|fix|patch|refactor|"
    r"search|find|grep|count|summari[sz]e|review|analy[sz]e|explain|describe|go\s+through|tell\s+me\s+about"
)
_HERE = r"this|these|that|the\s+current|current|my|our|the\s+local|the"
_PLACE = (
    r"files?|folders?|director(?:y|ies)|dirs?|repo(?:sitory)?|project|code\s*base|source(?:\s+code)?|working\s+tree"
)
_RUNNABLE = (
    r"tests?|test\s+suite|commands?|scripts?|programs?|pytest|npm|pip|make|cargo|git|docker|ls|pwd|"
    r"python|node|bash|build|linter|requirements|dependencies|packages|`[^`]+`"
)

_ASKS = (
    # "list the files in this directory", "summarize my project", "fix the bug in app.py"
    re.compile(rf"\b(?:{_ACTION})\b[^.?!\n]{{0,60}}?\b(?:{_HERE})\s+(?:\w+\s+)?(?:{_PLACE})\b", re.IGNORECASE),
    re.compile(rf"\b(?:{_ACTION})\b[^.?!\n]{{0,60}}?(?:{FILE_NAME})", re.IGNORECASE),
    # "run the tests", "execute `make build`", "install requests with pip"
    re.compile(
        rf"\b(?:run|execute|install|build|compile|deploy|launch)\b\s+(?:the\s+|my\s+|our\s+|a\s+|this\s+)?(?:{_RUNNABLE})",
        re.IGNORECASE,
    ),
    # "what is in config.yaml", "what files are here", "what does main.py do"
    re.compile(rf"\bwhat(?:'s|\s+is|\s+are)?\s+(?:in|inside)\s+(?:{FILE_NAME})", re.IGNORECASE),
    re.compile(rf"\bwhat\s+does\s+(?:{FILE_NAME})\s+do\b", re.IGNORECASE),
    re.compile(r"\b(?:what|which)\s+files\b", re.IGNORECASE),
)
# Asking how to do something, or what something means, is a question the model can answer.
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|can|could|would|should|to)\b|what\s+(?:is|are)\s+(?:a|an|the)\s+\w+\s+(?:command|flag|option)\b|"
    r"explain\s+(?:how|what|why)\b|why\b|what\s+does\s+`)",
    re.IGNORECASE,
)


def asks_for_tools(text: str) -> bool:
    """Whether `text` asks for something only a tool could do (see the module docstring)."""
    if _HOW_TO.match(text):
        return False
    return any(pattern.search(text) for pattern in _ASKS)
