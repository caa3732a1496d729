"""The HTTP application: `create_app` and its settings."""

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings, TokenConfig, load_settings

__all__ = ["ServerSettings", "TokenConfig", "create_app", "load_settings"]
