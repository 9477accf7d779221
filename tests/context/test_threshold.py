"""Where compaction starts: the automatic rule, per-model fractions, the absolute cap, and the reason shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.config import ConfigError, load_settings
from hermeslite.context import CompressionConfig, ContextCompressor
from hermeslite.context.threshold import resolve_threshold


def threshold(window: int, model: str | None = None, **cfg):
    return resolve_threshold(CompressionConfig(**cfg), window, model)


def test_auto_compacts_small_windows_at_three_quarters_and_large_ones_at_half():
    small = threshold(8_192)
    assert (small.tokens, small.fraction, small.capped_at) == (6_144, 0.75, None)
    assert small.describe() == "6,144 tokens: 75% of the 8,192-token window (auto: windows under 512K compact at 75%)"
    large = threshold(600_000, threshold_tokens=None)
    assert (large.tokens, large.fraction) == (300_000, 0.5)
    assert large.reason() == "auto: windows of 512K and more compact at 50%"


def test_the_absolute_cap_keeps_a_huge_window_from_waiting_too_long():
    capped = threshold(1_000_000)
    assert (capped.tokens, capped.capped_at) == (200_000, 200_000)
    assert capped.reason() == (
        "capped by compression.threshold_tokens; 50% (auto: windows of 512K and more compact at 50%) would be 500,000"
    )
    assert threshold(1_000_000, threshold_tokens=None).tokens == 500_000
    assert threshold(32_000, threshold_tokens=10_000).tokens == 10_000
    assert threshold(32_000, threshold_tokens=100_000).capped_at is None


def test_an_explicit_fraction_wins_over_auto_and_the_longest_model_match_wins_over_both():
    assert threshold(100_000, threshold=0.5).tokens == 50_000
    assert threshold(100_000, threshold=0.5).reason() == "compression.threshold"
    per_model = {"claude": 0.8, "claude-haiku": 0.6, "gpt": 0.4}
    haiku = threshold(100_000, "anthropic/Claude-Haiku-4-5", threshold=0.5, model_thresholds=per_model)
    assert (haiku.tokens, haiku.reason()) == (60_000, "compression.model_thresholds['claude-haiku']")
    assert threshold(100_000, "anthropic/claude-sonnet-4-5", model_thresholds=per_model).tokens == 80_000
    assert threshold(100_000, "ollama/llama3.1", threshold=0.5, model_thresholds=per_model).tokens == 50_000


def test_the_threshold_is_resolved_again_when_the_model_changes():
    c = ContextCompressor(
        CompressionConfig(model_thresholds={"mini": 0.6}), context_length=128_000, model="openai/gpt-4o"
    )
    assert c.threshold_tokens == 96_000
    c.set_model("openai/gpt-4o-mini", 64_000)
    assert c.threshold_tokens == 38_400 and c.threshold.reason() == "compression.model_thresholds['mini']"
    assert c.target_tokens == int(38_400 * 0.6)


def test_model_thresholds_are_validated_with_the_key_in_the_message(workdir: Path):
    (workdir / "hermeslite.yaml").write_text("compression:\n  model_thresholds: {claude: 1.5}\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"compression\.model_thresholds\.claude must be between 0\.05 and 0\.95, got 1\.5"
    ):
        load_settings()
    (workdir / "hermeslite.yaml").write_text("compression:\n  model_thresholds: [claude]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="model_thresholds must be a mapping of model-name parts to numbers"):
        load_settings()
    (workdir / "hermeslite.yaml").write_text(
        "compression:\n  threshold: auto\n  threshold_tokens: null\n  model_thresholds: {gpt: 0.6}\n", encoding="utf-8"
    )
    loaded = load_settings().settings.compression
    assert (loaded.threshold, loaded.threshold_tokens, loaded.model_thresholds) == ("auto", None, {"gpt": 0.6})
