"""Every vendor's key format is masked wherever it stands, and ordinary text is never touched."""

from __future__ import annotations

import pytest

from hermeslite.context.redact import MARK, redact_secrets

from ..secret_samples import FORMATS, NEGATIVES, SETTINGS, vendor_samples

SAMPLES = vendor_samples(0)


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.vendor)
def test_a_self_identifying_key_is_masked_with_no_name_around_it(sample, setting):
    text = setting.format(key=sample.key)
    redacted = redact_secrets(text)
    assert sample.secret not in redacted
    assert sample.secret[:8] not in redacted and sample.secret[-8:] not in redacted
    assert MARK in redacted


@pytest.mark.parametrize("sample", vendor_samples(7), ids=lambda s: s.vendor)
def test_the_vendor_prefix_and_the_surrounding_text_stay(sample):
    redacted = redact_secrets(f"before {sample.key} after")
    assert redacted.startswith("before ") and redacted.endswith(" after")
    prefix = sample.key[: len(sample.key) - len(sample.secret)]
    assert prefix in redacted


def test_the_corpus_covers_many_vendors():
    assert len({vendor for vendor, _, _ in FORMATS}) >= 100


def test_recall_over_many_generated_keys_is_complete():
    """The committed counterpart of the gitleaks measurement in the benchmark: 50 draws of every format."""
    samples = [sample for seed in range(100, 150) for sample in vendor_samples(seed)]
    missed = [s.vendor for s in samples if s.secret in redact_secrets(f"log: {s.key}\n")]
    assert missed == []


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_code_and_prose_stay_unchanged(text):
    assert redact_secrets(text) == text


def test_all_negatives_at_once_stay_unchanged():
    text = "\n".join(NEGATIVES)
    assert redact_secrets(text) == text


@pytest.mark.parametrize("sample", vendor_samples(3), ids=lambda s: s.vendor)
def test_redacting_a_key_twice_changes_nothing(sample):
    once = redact_secrets(f"KEY={sample.key} and {sample.key}")
    assert redact_secrets(once) == once
