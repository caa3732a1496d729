"""TFRobot: an agent framework whose messages stay typed from the user to the database and back."""

__version__ = "0.1.0"

__all__: list[str] = []
