"""How fast `redact_secrets` is, and how much it finds, on text shaped like a transcript.

What is measured:
- time and throughput on 1 MB of mixed transcript text: this repository's own
  source code, log lines, JSON tool results and prose, with 40 credentials
  (vendor keys, `.env` lines, headers, URLs with passwords) spread through it;
- recall on the committed vendor corpus (tests/secret_samples.py: every format
  in every setting, ten seeds), on the config-file and login corpus
  (tests/secret_families.py: .pgpass, kubeconfig, registry logins, Square,
  Docker Hub, Twilio), and on the credentials planted in the 1 MB text;
- false positives: how many lines of the committed negative table (ordinary
  code and prose) and of the look-alike table come back changed, and how many
  spans are masked in the 1 MB text beyond the planted credentials.

Run: python benchmarks/redact_bench.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hermeslite.context.redact import MARK, redact_secrets  # noqa: E402
from tests.secret_families import CASES, LOOKALIKES  # noqa: E402
from tests.secret_samples import NEGATIVES, SETTINGS, vendor_samples  # noqa: E402

SIZE = 1_000_000
RUNS = 5
WORDS = (
    "the agent ran tests again after reading files and the summary kept every path while the user asked for"
    " a smaller change to configuration of tokens passwords keys and secrets in docs"
).split()


def _code(rng: random.Random) -> str:
    # The redaction modules themselves are left out: their docstrings show credential syntax on purpose.
    files = sorted(p for p in (ROOT / "hermeslite").rglob("*.py") if not p.name.startswith(("secret_", "redact")))
    return "\n".join(p.read_text() for p in rng.sample(files, min(12, len(files))))


def _log(rng: random.Random) -> str:
    lines = []
    for n in range(400):
        uid = "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}".format(*(rng.getrandbits(b) for b in (32, 16, 16, 16, 48)))
        lines.append(
            f"2026-05-01T12:{n % 60:02d}:{rng.randrange(60):02d}Z INFO worker.{rng.choice(WORDS)} request {uid} "
            f"took {rng.randrange(900)} ms path=/srv/app/{rng.choice(WORDS)}.py commit {rng.getrandbits(160):040x}"
        )
    return "\n".join(lines)


def _json(rng: random.Random) -> str:
    result = {
        "path": f"src/{rng.choice(WORDS)}.py",
        "lines": [" ".join(rng.choices(WORDS, k=12)) for _ in range(30)],
        "exit_code": rng.randrange(3),
        "tokens": rng.randrange(10_000),
        "key": rng.choice(WORDS),
    }
    return json.dumps({"role": "tool", "content": json.dumps(result)})


def _prose(rng: random.Random) -> str:
    return " ".join(" ".join(rng.choices(WORDS, k=rng.randrange(8, 20))).capitalize() + "." for _ in range(60))


def _planted(rng: random.Random) -> list[tuple[str, str]]:
    """(text, secret) pairs: vendor keys in settings plus credentials known only by their context."""
    keys = rng.sample(vendor_samples(99), 30)
    planted = [(rng.choice(SETTINGS).format(key=k.key), k.secret) for k in keys]
    for n in range(10):
        secret = f"pw{rng.getrandbits(48):x}!{n}"
        planted.append(
            rng.choice(
                [
                    (f"DB_PASSWORD={secret}\n", secret),
                    (f'{{"client_secret": "{secret}"}}', secret),
                    (f"postgres://app:{secret}@db:5432/app", secret),
                    (f"curl -u admin:{secret} https://x", secret),
                    (f"password: {secret}\n", secret),
                ]
            )
        )
    return planted


def mixed_text(seed: int = 1) -> tuple[str, list[str]]:
    """About SIZE characters of transcript-like text and the secrets planted in it."""
    rng = random.Random(seed)
    pieces, size = [], 0
    while size < SIZE:
        piece = rng.choice((_code, _log, _json, _json, _prose))(rng)
        pieces.append(piece)
        size += len(piece)
    planted = _planted(rng)
    for text, _ in planted:
        pieces.insert(rng.randrange(len(pieces)), f"\n{text}\n")
    return "\n".join(pieces)[: SIZE + 20_000], [secret for _, secret in planted]


def corpus_recall() -> tuple[int, int]:
    samples = [s for seed in range(10) for s in vendor_samples(seed)]
    masked = sum(s.secret not in redact_secrets(setting.format(key=s.key)) for s in samples for setting in SETTINGS)
    return masked, len(samples) * len(SETTINGS)


def family_recall() -> tuple[int, int]:
    """Cases whose secret leaves no 8-character piece behind (a base64 PEM's middle is what is checked)."""

    def clean(secret: str, redacted: str) -> bool:
        flat, text = secret.replace("\n", ""), redacted.replace("\n", "")
        return not any(flat[i : i + 8] in text for i in range(max(1, len(flat) - 7)))

    return sum(clean(case.secret, redact_secrets(case.text)) for case in CASES), len(CASES)


def main() -> None:
    text, secrets = mixed_text()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        redacted = redact_secrets(text)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    found = sum(secret not in redacted for secret in secrets)
    masked, total = corpus_recall()
    changed = sum(redact_secrets(line) != line for line in NEGATIVES)
    families, cases = family_recall()
    lookalikes = sum(redact_secrets(text) != text for text in LOOKALIKES)
    print(f"redact_secrets on {len(text) / 1e6:.2f} MB of mixed transcript text ({RUNS} runs)\n")
    print("| measure | value |")
    print("|---|---:|")
    print(f"| median time for 1 MB | {median * 1000:.0f} ms |")
    print(f"| throughput | {len(text) / 1e6 / median:.1f} MB/s |")
    print(f"| planted credentials masked in the 1 MB text | {found}/{len(secrets)} |")
    print(f"| spans masked in the 1 MB text beyond the planted ones | {redacted.count(MARK) - found} |")
    print(f"| recall on the committed vendor corpus | {masked}/{total} ({masked / total:.1%}) |")
    print(f"| recall on the config-file and login corpus | {families}/{cases} ({families / cases:.1%}) |")
    print(f"| negative-table lines changed (false positives) | {changed}/{len(NEGATIVES)} |")
    print(f"| look-alike lines changed (false positives) | {lookalikes}/{len(LOOKALIKES)} |")


if __name__ == "__main__":
    main()
