"""The one exception of configuration problems."""


class ConfigError(ValueError):
    """A configuration error; the message names the offending key and the fix."""
