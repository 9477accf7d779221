"""Whether a command or file access runs, runs in the sandbox, asks the user, or is refused.

The parsed policy (`shell_policy.judge`) says how risky a command is; the
approval mode (`tools.approval`) says what to do about each risk:

    risk          ask                       auto            deny      allow
    ORDINARY      run                       run             run       run, no sandbox
    DESTRUCTIVE   ask                       run             refuse    run, no sandbox
    OPAQUE        run (ask if no sandbox)   as ask          as ask*   run, no sandbox
    ESCAPE        ask, then run unconfined  ask             refuse    run, no sandbox
    UNCONTAINED   ask                       ask             refuse    run, no sandbox

(* deny refuses whatever would ask.) Outside `allow`, everything that runs
runs in the sandbox when it is available; an approved ESCAPE runs without it,
because writing outside is exactly what the user approved. In a risky
workplace (the project is $HOME, / or a system folder) the sandbox bounds
nothing worth bounding, so DESTRUCTIVE asks in auto mode too and OPAQUE asks
as it would without a sandbox.

Network use is judged apart from the risk: the sandbox has no network, so a
command that visibly reaches hosts not all in `tools.network_allow` (served
by the proxy) asks "this command will use the network"; approved, it runs in
the sandbox with the network. Without a sandbox that can hold the network,
such a command asks all the same. With no one to ask (headless), whatever
would ask is denied with the reason and how to permit it, as an error the
model can act on. The file tools ask the same way, treating a path outside
the boundary as an ESCAPE. With `tools.edits: ask`, an edit by write_file or
patch that would run asks too, showing its diff (`check_edit`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hermeslite.tools.allow_list import AllowList, is_loopback
from hermeslite.tools.base import ApprovalRequest, ToolContext, ToolResult, deny_all
from hermeslite.tools.edit_diff import EditDiff
from hermeslite.tools.shell_policy import Risk, Verdict, judge
from hermeslite.tools.shell_policy.hosts import UNKNOWN, describe, host_name


class Action(enum.Enum):
    RUN = "run"
    ASK = "ask"
    REFUSE = "refuse"


@dataclass(frozen=True)
class Plan:
    action: Action
    sandboxed: bool  # whether it runs in the sandbox (also after the user approves it)


def plan(risk: Risk, mode: str, sandbox: bool, *, risky_place: bool = False) -> Plan:
    """The decision table above: what `mode` does with `risk`, given whether a sandbox exists and
    whether the working directory is a risky place for one (see tools.workplace)."""
    if mode == "allow":
        return Plan(Action.RUN, sandboxed=False)
    bounded = sandbox and not risky_place
    runs = (
        risk == Risk.ORDINARY
        or (risk == Risk.DESTRUCTIVE and mode == "auto" and not risky_place)
        or (risk == Risk.OPAQUE and bounded)
    )
    if runs:
        return Plan(Action.RUN, sandboxed=sandbox)
    return Plan(Action.REFUSE if mode == "deny" else Action.ASK, sandboxed=sandbox and risk != Risk.ESCAPE)


@dataclass(frozen=True)
class Decision:
    """May it run, and where; `refusal` is the error the model reads when it may not."""

    sandboxed: bool = False
    refusal: str | None = None
    network: bool = False  # the user let it reach the network


HINTS = {
    Risk.DESTRUCTIVE: "set tools.approval: auto (runs it in the sandbox) or allow",
    Risk.OPAQUE: "run where the Landlock sandbox is available, or set tools.approval: allow",
    Risk.ESCAPE: "add the directory to tools.writable_paths, or set tools.approval: allow",
    Risk.UNCONTAINED: "set tools.approval: allow",
}
READ_HINT = "add the directory to tools.readable_paths, or set tools.approval: allow"
NETWORK_HINT = (
    "add the hosts to tools.network_allow (HTTP and HTTPS through hermeslite's proxy), or set tools.approval: allow"
)
PLACE_HINT = "start hermeslite in a project folder, or set tools.approval: allow"
EDITS_HINT = "set tools.edits: auto (edits inside the project are written without asking)"
EDITS_SCOPE = "file edits by write_file and patch"


async def check_approval(command: str, ctx: ToolContext, env: Mapping[str, str]) -> Decision:
    """Judge a terminal command, as run with `env`, and apply the approval mode, asking the user
    when it says so."""
    sandbox = ctx.sandbox is not None
    verdict = judge(command, replace(ctx.effective_boundary, env=env), sandbox=sandbox)
    if ctx.planning:
        return await _plan_decision(command, verdict, ctx)
    mode, risky_place = ctx.approval_policy, ctx.risky_workplace is not None
    if ctx.mode == "accept-edits" and mode == "ask":
        mode = "auto"  # edits and commands that stay inside the boundary run (in the sandbox) without asking
    decided = plan(verdict.risk, mode, sandbox, risky_place=risky_place)
    network = network_reason(verdict.hosts, ctx) if mode != "allow" else None
    if decided.action is Action.RUN and network is None:
        return Decision(sandboxed=decided.sandboxed)
    reasons = [network] if decided.action is Action.RUN else [_risk_reason(verdict, risky_place), network]
    reason = "; ".join(r for r in reasons if r)
    action = decided.action if decided.action is not Action.RUN else Action.REFUSE if mode == "deny" else Action.ASK
    request = ApprovalRequest(
        tool="terminal", command=command, reason=reason, scope=f"terminal commands flagged: {reason}"
    )
    if decided.action is Action.RUN:
        hint = NETWORK_HINT
    elif risky_place and verdict.risk in (Risk.DESTRUCTIVE, Risk.OPAQUE):
        hint = PLACE_HINT
    else:
        hint = HINTS.get(verdict.risk, HINTS[Risk.UNCONTAINED])
    refusal = await _ask_or_refuse(ctx, request, action, "this command", hint)
    return Decision(sandboxed=decided.sandboxed, refusal=refusal, network=network is not None)


PLAN_REFUSAL = (
    "error: refused in plan mode ({reason}): in plan mode commands run where nothing but a scratch dir is "
    "writable, and this one can do harm that sandbox cannot stop; do not retry it, put it in the plan instead"
)


async def _plan_decision(command: str, verdict: Verdict, ctx: ToolContext) -> Decision:
    """Plan mode: every command runs in the sandbox with nothing writable but the scratch dir, so a
    write anywhere fails whatever the parser thought of it, and nothing asks about writes. What
    no filesystem sandbox holds (UNCONTAINED) is refused; the network asks as it always does."""
    if verdict.risk == Risk.UNCONTAINED:
        return Decision(sandboxed=True, refusal=PLAN_REFUSAL.format(reason=verdict.reason or "uncontained"))
    if ctx.approval_policy == "allow":
        return Decision(sandboxed=True, network=True)  # the user lets everything run; writes stay confined
    network = network_reason(verdict.hosts, ctx)
    if network is None:
        return Decision(sandboxed=True)
    action = Action.REFUSE if ctx.approval_policy == "deny" else Action.ASK
    request = ApprovalRequest(
        tool="terminal", command=command, reason=network, scope=f"terminal commands flagged: {network}"
    )
    refusal = await _ask_or_refuse(ctx, request, action, "this command", NETWORK_HINT)
    return Decision(sandboxed=True, refusal=refusal, network=True)


def network_reason(hosts: tuple[str, ...], ctx: ToolContext) -> str | None:
    """`will use the network (reaches ...)` when the command visibly reaches a host the sandbox does
    not let through; None when it reaches none, or only hosts the proxy serves."""
    sandbox = ctx.sandbox
    if sandbox is not None and sandbox.isolated:
        # 127.0.0.1 in the sandbox is its own loopback: where a command's own servers are, and where
        # tools.network_allow forwards the host's loopback ports it names. Nothing to ask about.
        hosts = tuple(h for h in hosts if not is_loopback(host_name(h)))
    if sandbox is not None and sandbox.proxied:
        allowed = AllowList.parse([a for a in sandbox.proxied if not a.startswith("/")])
        hosts = tuple(h for h in hosts if not (_web(h) and allowed.covers(h)))
    return f"will use the network (reaches {describe(hosts)})" if hosts else None


def _web(host: str) -> bool:
    """A host the proxy can carry: `name` or `name:port`, not `ssh:`/`tcp:` traffic nor an unknown one."""
    return host != UNKNOWN and not host.startswith(("ssh:", "tcp:"))


def _risk_reason(verdict: Verdict, risky_place: bool) -> str:
    reason = verdict.reason or "needs approval"
    if risky_place and verdict.risk in (Risk.DESTRUCTIVE, Risk.OPAQUE):
        return f"{reason}, and the working directory is no project folder"
    return reason


async def check_path(ctx: ToolContext, tool: str, path: Path, *, write: bool) -> str | None:
    """None when `tool` may read or write the resolved `path`, else the refusal the model reads.

    Writes are free inside the boundary (cwd, temp dir, tools.writable_paths);
    reads inside the cwd and `ctx.readable_paths` (tools.readable_paths and
    tools.writable_paths). Anything else is an escape: it asks, or is
    refused, like an escaping command.
    """
    boundary = ctx.effective_boundary
    if write:
        inside = boundary.allows_write(path)
    else:
        inside = any(path.is_relative_to(root) for root in (boundary.cwd, *ctx.readable_paths))
    decided = plan(Risk.ORDINARY if inside else Risk.ESCAPE, ctx.approval_policy, sandbox=False)
    if decided.action is Action.RUN:
        return None
    verb = "writes" if write else "reads"
    where = (
        "the working directory and tools.writable_paths" if write else "the working directory and tools.readable_paths"
    )
    request = ApprovalRequest(
        tool=tool,
        command=f"{'write' if write else 'read'} {path}",
        reason=f"{verb} {path}, outside {where}",
        scope=f"{tool} {verb} in {path.parent}",
    )
    return await _ask_or_refuse(
        ctx, request, decided.action, "this write" if write else "this read", HINTS[Risk.ESCAPE] if write else READ_HINT
    )


async def check_outside_call(ctx: ToolContext, request: ApprovalRequest, hint: str) -> str | None:
    """None when a call the sandbox cannot see into (an MCP server's tool, run by another
    program) may go ahead, else the refusal the model reads. It is judged as UNCONTAINED:
    asked under ask and auto, run under allow, refused under deny; headless, `hint` says how
    to permit it."""
    decided = plan(Risk.UNCONTAINED, ctx.approval_policy, sandbox=False)
    if decided.action is Action.RUN:
        return None
    return await _ask_or_refuse(ctx, request, decided.action, "this call", hint)


WEB_HINT = "add the host to tools.web_fetch.domains, or set tools.approval: allow"


async def check_web_host(ctx: ToolContext, request: ApprovalRequest) -> str | None:
    """None when web_fetch may fetch from a host tools.web_fetch.domains does not list, else the
    refusal the model reads. The network asks under ask and auto, as a command's does; allow lets
    it through, deny refuses. `request.scope` names the host, so "allow for this session" covers
    that host alone."""
    if ctx.approval_policy == "allow":
        return None
    action = Action.REFUSE if ctx.approval_policy == "deny" else Action.ASK
    return await _ask_or_refuse(ctx, request, action, "this fetch", WEB_HINT)


async def check_edit(ctx: ToolContext, tool: str, diff: EditDiff) -> str | None:
    """None when an edit that passed `check_path` may be written, else the refusal the model reads.

    Only `tools.edits: ask` asks (as ctx.edits), with the diff in the request;
    "allow for this session" then covers every edit. An edit that changes
    nothing is not worth a question. The setting asks under `tools.approval:
    allow` too (the user asked to review edits, specifically); under `deny`
    the edit is refused, as everything that would ask is. The accept-edits mode
    is the user saying, for now, that edits need no question.
    """
    if ctx.edits != "ask" or ctx.mode == "accept-edits" or (not diff.text and not diff.note):
        return None
    request = ApprovalRequest(
        tool=tool,
        command=f"{'write' if tool == 'write_file' else 'patch'} {diff.path}",
        reason=f"edits {diff.summary()} (tools.edits is ask)",
        scope=EDITS_SCOPE,
        diff=diff,
    )
    action = Action.REFUSE if ctx.approval_policy == "deny" else Action.ASK
    return await _ask_or_refuse(ctx, request, action, "this edit", EDITS_HINT)


async def path_refusal(ctx: ToolContext, tool: str, path: Path, *, write: bool) -> ToolResult | None:
    """`check_path` for a file tool: None when it may go ahead, else the error result it returns."""
    refusal = await check_path(ctx, tool, path, write=write)
    return ToolResult.refusal(refusal) if refusal else None


async def _ask_or_refuse(
    ctx: ToolContext, request: ApprovalRequest, action: Action, subject: str, hint: str
) -> str | None:
    """None when the user approves; the refusal for deny mode, headless mode or a user's no."""
    if action is Action.REFUSE:
        return (
            f"error: refused ({request.reason}): the approval policy is deny (tools.approval: deny); "
            "do not retry it, find another way or ask the user"
        )
    if ctx.approve is deny_all:
        return f"error: denied ({request.reason}): no one can approve {subject} in headless mode; to permit it, {hint}"
    if await ctx.approve(request):
        return None
    return f"error: the user denied {subject} ({request.reason}); do not retry it, ask the user how to proceed"
