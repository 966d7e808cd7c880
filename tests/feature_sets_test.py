#!/usr/bin/env python3
"""Checks scripts/feature_sets.py's comparison on fixed `cargo tree` texts. Run by `.ci/run`'s
feature-sets phase; stdlib only."""
from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import feature_sets  # noqa: E402

NORMAL = """\
dcl-engine v0.1.0 (/w/core/engine)|default
nix v0.29.0|process,signal
tokio v1.54.1|net,rt (*)
tokio v1.54.1|time
"""


class FeatureSets(unittest.TestCase):
    def test_a_feature_only_a_dev_dependency_adds_is_named(self) -> None:
        dev = NORMAL + "nix v0.29.0|fs,process\nrand v0.9.5|std\n"
        gaps = feature_sets.missing(feature_sets.parse(NORMAL), feature_sets.parse(dev))
        # rand is only a dev-dependency: its features cost nothing twice; nix's do.
        self.assertEqual(gaps, {"nix v0.29.0": ["fs"]})

    def test_the_same_features_in_any_order_and_split_over_lines_pass(self) -> None:
        dev = "tokio v1.54.1|time,net\ntokio v1.54.1|rt\nnix v0.29.0|signal,process\n"
        self.assertEqual(feature_sets.missing(feature_sets.parse(NORMAL), feature_sets.parse(dev)), {})
        self.assertEqual(feature_sets.parse(NORMAL)["tokio v1.54.1"], {"net", "rt", "time"})


if __name__ == "__main__":
    unittest.main()
