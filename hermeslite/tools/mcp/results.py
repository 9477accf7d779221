"""What a server sends back, turned into what the model reads.

A tool result is a list of content blocks plus, optionally, structured
content. Text is kept as it is; an image is kept beside the text for a model
that takes images (and named in the text, so one that does not still knows it
was there); audio, binary resources and resource links become a line each.
Structured content is shown as JSON when the server sent no text: the spec
asks servers to repeat it as text, and showing both would send it twice.
Runs on the MCP thread (it reads the SDK's types); what leaves it is plain.
"""

from __future__ import annotations

import binascii
import json

import mcp_types as types

from .status import CallOutcome, Image, PromptArgument, PromptInfo, ToolInfo

# What providers accept as image parts, and the largest they take (Anthropic's limit per image).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
IMAGE_BYTES = 5 * 1024 * 1024
EMPTY = "(the tool returned no content)"


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def call_outcome(result: types.CallToolResult) -> CallOutcome:
    lines: list[str] = []
    images: list[Image] = []
    has_text = False
    for block in result.content:
        if isinstance(block, types.TextContent):
            lines.append(block.text)
            has_text = True
        elif isinstance(block, types.ImageContent):
            image = Image(block.mime_type, block.data)
            why = _unusable(image)
            if why:
                lines.append(f"[image: {image.mime_type}, {size_text(image.size)}, not shown: {why}]")
            else:
                images.append(image)
                lines.append(f"[image {len(images)}: {image.mime_type}, {size_text(image.size)}]")
        else:
            lines.append(_other_block(block))
    if result.structured_content is not None and not has_text:
        lines.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False, default=str))
    return CallOutcome("\n".join(lines) or EMPTY, is_error=result.is_error, images=tuple(images))


def _unusable(image: Image) -> str:
    """Why a model could not be shown `image`, or "" when it can."""
    if image.mime_type not in IMAGE_TYPES:
        return "models take png, jpeg, gif and webp"
    if image.size > IMAGE_BYTES:
        return f"larger than {size_text(IMAGE_BYTES)}"
    try:
        binascii.a2b_base64(image.data, strict_mode=True)
    except (binascii.Error, ValueError):
        return "its data is not valid base64"
    return ""


def _other_block(block: types.AudioContent | types.ResourceLink | types.EmbeddedResource) -> str:
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {size_text(len(block.data) * 3 // 4)}, not shown]"
    if isinstance(block, types.ResourceLink):
        kind = f", {block.mime_type}" if block.mime_type else ""
        return f"[resource link: {block.name} {block.uri}{kind}]"
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    kind = resource.mime_type or "binary"
    return f"[resource {resource.uri}: {kind}, {size_text(len(resource.blob) * 3 // 4)}, not shown]"


def tool_info(tool: types.Tool) -> ToolInfo:
    return ToolInfo(tool.name, (tool.description or "").strip(), dict(tool.input_schema))


def prompt_info(prompt: types.Prompt) -> PromptInfo:
    arguments = tuple(
        PromptArgument(arg.name, (arg.description or "").strip(), bool(arg.required)) for arg in prompt.arguments or ()
    )
    return PromptInfo(prompt.name, (prompt.description or "").strip(), arguments)


def prompt_text(result: types.GetPromptResult) -> str:
    """A prompt's messages as the one user message it is sent as; each is labelled with its role
    when they are not all the user's."""
    labelled = any(message.role != "user" for message in result.messages)
    parts = []
    for message in result.messages:
        block = message.content
        if isinstance(block, types.TextContent):
            text = block.text
        elif isinstance(block, types.ImageContent):
            text = f"[image: {block.mime_type}, not included]"
        else:
            text = _other_block(block)
        parts.append(f"[{message.role}]\n{text}" if labelled else text)
    return "\n\n".join(parts)
