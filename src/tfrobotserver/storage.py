"""The server's SQL store: one `MetaData` that components add their tables to.

SQLite under the user's data dir by default (aiosqlite), any SQLAlchemy async URL otherwise; the
app creates the tables at start-up so that `make run` needs no migration step.
"""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData()
