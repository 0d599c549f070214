"""Bot manifests (referee/manifest.py): what ``bot.toml`` may say. Its transport: test_transport.py."""

from __future__ import annotations

from pathlib import Path


def test_a_manifests_limits_are_whole_numbers_in_range(tmp_path: Path):
    import pytest

    from hexarena.protocol.errors import ConfigError
    from hexarena.referee.manifest import load_manifest

    for value, problem in (("99999999999999999999", "less than or equal to 2147483648"),
                           ("true", "a valid integer"), ("1.0", "a valid integer"), ("0", "greater than 0")):
        (tmp_path / "bot.toml").write_text(f'name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = {value}\n')
        with pytest.raises(ConfigError, match=problem):
            load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text('name = "lim"\ncommand = ["./lim"]\n[limits]\nmemory_mb = 64\n')
    assert load_manifest(tmp_path).limits == {"memory_mb": 64}
