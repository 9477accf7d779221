"""/mcp: the MCP servers as the agent reports them (agent/mcp_commands.py), for the app and the line chat."""

from __future__ import annotations

from collections.abc import Sequence

from hermeslite.display import format_tokens, plural, short_path

MCP_NONE = (
    "No MCP servers are configured. Add one under mcp_servers: in the config file, or with "
    "`hermeslite mcp add NAME -- COMMAND [ARGS...]` (see MCP servers in docs/configuration.md)."
)
MCP_MARKS = {"ready": "●", "starting": "…", "failed": "✗", "stopped": "○"}


def mcp_view(reports: Sequence, logs: str) -> str:
    """/mcp: each server's state, its tools and what each schema costs in tokens, its prompts, what
    was left out, and the last error; then how to restart one and where the logs are."""
    if not reports:
        return MCP_NONE
    states = [r.status.state.value for r in reports]
    counts = ", ".join(f"{states.count(s)} {s}" for s in MCP_MARKS if s in states)
    offered = [r for r in reports if r.offered]
    lines = [
        f"MCP servers · {counts} · in the next request: "
        f"{sum(len(r.tools) for r in offered)} tools, {format_tokens(sum(r.tokens for r in offered))} tokens",
    ]
    for report in reports:
        lines += ["", *_server_lines(report)]
    lines += [
        "",
        "/mcp restart NAME restarts one; /mcp__<server>__<prompt> [args] sends a prompt as your message.",
        f"What stdio servers write to stderr: {short_path(logs)}/<name>.log",
    ]
    return "\n".join(lines)


def _server_lines(report) -> list[str]:
    status = report.status
    state = status.state.value
    head = f"{MCP_MARKS[state]} {status.name}  {state}  {status.transport}: {status.target}"
    if state == "ready":
        joins = "" if report.offered or not report.tools else " (offered from the next message)"
        head += f"  · {plural(len(report.tools), 'tool')}, {format_tokens(report.tokens)} tokens{joins}"
    lines = [head]
    if status.reason and state != "ready":
        lines.append(f"    {status.reason}")
    width = max((len(name) for name, _ in report.tools), default=0) + 2
    lines += [f"    {name:<{width}}{format_tokens(tokens):>7} tokens" for name, tokens in report.tools]
    lines += [f"    prompt /{p.name} {p.args}".rstrip() for p in report.prompts]
    lines += [f"    skipped: {line}" for line in status.skipped]
    if status.last_error and status.last_error != status.reason:
        lines.append(f"    last error: {status.last_error}")
    return lines
