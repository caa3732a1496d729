"""Component classes and the action mixins they are built from (the seed's `robot/factory/`)."""

__all__: list[str] = []
