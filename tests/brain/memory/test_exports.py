"""The saver-loader module's public surface is pinned (the packages' own: tests/test_public_api.py)."""

from __future__ import annotations

import tfrobot.schema.saver_loader as saver_loader


def test_saver_loader_public_names() -> None:
    assert sorted(saver_loader.__all__) == ["DocumentStore", "SaverLoader", "SaverLoaderError"]
