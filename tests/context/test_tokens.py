"""Token estimates: rough counts for the engine."""

from hermeslite.context import estimate_tokens
from hermeslite.context.tokens import IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS


def test_text_is_about_four_chars_a_token():
    assert estimate_tokens("a" * 400) == 100
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("") == 0


def test_messages_carry_overhead_and_tool_arguments():
    plain = {"role": "user", "content": "x" * 40}
    assert estimate_tokens(plain) == 10 + MESSAGE_OVERHEAD_TOKENS
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "write_file", "arguments": '{"content": "' + "y" * 4000 + '"}'},
            }
        ],
    }
    assert estimate_tokens(call) > 1000
    assert estimate_tokens([plain, plain]) == 2 * estimate_tokens(plain)


def test_images_cost_a_flat_amount_not_their_base64_length():
    small = {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 10}}],
    }
    huge = {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 2_000_000}}],
    }
    assert estimate_tokens(small) == estimate_tokens(huge) == IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS
