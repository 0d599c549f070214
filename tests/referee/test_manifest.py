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


def test_manifest_fields_are_length_bounded_and_refused_in_one_line(tmp_path: Path):
    """issue 31 item 4: a 40 MB description (a 40 KB upload) is refused before it is parsed; a field over its bound
    names its length and the limit."""
    import pytest

    from hexarena.protocol.errors import ConfigError
    from hexarena.referee.manifest import load_manifest

    path = tmp_path / "bot.toml"
    cases = [(f'description = "{"x" * 40_000_000}"', "bot.toml: larger than 64 KB, the limit of a manifest; keep long "
                                                      "texts out of it"),
             (f'description = "{"x" * 2001}"', "field 'description' is 2,001 characters long; at most 2,000 allowed"),
             (f'author = "{"a" * 101}"', "field 'author' is 101 characters long; at most 100 allowed"),
             ("build = [" + ", ".join(['"make"'] * 65) + "]", "field 'build' has 65 words; at most 64 allowed"),
             (f'build = ["{"m" * 1001}"]', "field 'build' has a word of 1,001 characters; at most 1,000 allowed")]
    for line, message in cases:
        path.write_text(f'name = "long"\ncommand = ["./long"]\n{line}\n')
        with pytest.raises(ConfigError) as refused:
            load_manifest(tmp_path)
        assert str(refused.value) == f"{path}: {message.removeprefix('bot.toml: ')}" and "\n" not in str(refused.value)
    path.write_text(f'name = "long"\ncommand = ["./long"]\ndescription = "{"x" * 2000}"\n')
    assert len(load_manifest(tmp_path).description) == 2000
