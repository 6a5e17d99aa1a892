"""Calibrate the near-duplicate threshold (``dedup_cosine``) for an embedding model.

Pairs that say the same thing must score at or above the threshold; pairs that differ
in one fact that matters (another city, vegan vs vegetarian, brother vs cousin) must
score below it, or a true new fact would be skipped as a duplicate.

    python -m hmem_bench.dedup_calibration --model-dir ../shared/models/all-MiniLM-L6-v2-onnx
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from hmem._text import adds_content
from hmem.extract.local_embed import LocalEmbeddings

__all__ = ["DIFFERENT", "SAME", "calibrate"]

SAME = [
    ("Maya is vegetarian.", "Maya is a vegetarian."),
    ("Maya is vegetarian.", "maya is vegetarian"),
    ("Maya lives in Paris.", "Maya lives in Paris now."),
    ("Maya has a serious peanut allergy.", "Maya has a severe peanut allergy."),
    ("Maya adopted a cat named Miso.", "Maya adopted a cat called Miso."),
    ("Maya works at Acme Corp as an engineer.", "Maya works as an engineer at Acme Corp."),
    ("Maya's brother Sam lives in Leeds.", "Sam, Maya's brother, lives in Leeds."),
    ("Maya runs every Sunday morning.", "Every Sunday morning Maya goes running."),
]

DIFFERENT = [
    ("Maya lives in Paris.", "Maya lives in London."),
    ("Maya is vegetarian.", "Maya is vegan."),
    ("Maya is vegetarian.", "Maya is pescatarian."),
    ("Maya's brother is Sam.", "Maya's cousin is Sam."),
    ("Maya adopted a cat named Miso.", "Maya adopted a dog named Miso."),
    ("Maya works at Acme Corp.", "Maya used to work at Acme Corp."),
    ("Maya is training for the Berlin Marathon.", "Maya is training for the Paris Marathon."),
    ("Maya's flight to Tokyo is on May 3.", "Maya's flight to Tokyo is on May 13."),
    ("Maya likes jazz.", "Maya dislikes jazz."),
]


def calibrate(model_dir: Path) -> dict[str, Any]:
    with LocalEmbeddings(model_dir=model_dir) as model:

        def scores(pairs: list[tuple[str, str]]) -> list[float]:
            a = np.array(model.embed([p[0] for p in pairs]))
            b = np.array(model.embed([p[1] for p in pairs]))
            return [round(float(x), 4) for x in (a * b).sum(axis=1)]

        same, different = scores(SAME), scores(DIFFERENT)
    return {
        "model": str(model_dir),
        "same_min": min(same),
        "different_max": max(different),
        "separable": min(same) > max(different),
        "same": dict(zip([f"{a} | {b}" for a, b in SAME], same, strict=True)),
        "different": dict(zip([f"{a} | {b}" for a, b in DIFFERENT], different, strict=True)),
        "skipped_at_0.95_cosine_only": {
            "same": sum(s >= 0.95 for s in same),
            "different": sum(s >= 0.95 for s in different),
        },
        "skipped_at_0.95_with_content_guard": {
            "same": sum(
                s >= 0.95 and not adds_content(b, a) for s, (a, b) in zip(same, SAME, strict=True)
            ),
            "different": sum(
                s >= 0.95 and not adds_content(b, a)
                for s, (a, b) in zip(different, DIFFERENT, strict=True)
            ),
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    print(json.dumps(calibrate(args.model_dir), indent=2))


if __name__ == "__main__":
    main()
