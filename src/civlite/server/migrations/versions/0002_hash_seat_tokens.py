"""seat tokens are kept as their SHA-256 only

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_tables = sa.table("tables", sa.column("id", sa.String(32)), sa.column("seats", sa.JSON()))


def upgrade() -> None:
    conn = op.get_bind()
    for table_id, seats in conn.execute(sa.select(_tables.c.id, _tables.c.seats)).all():
        if not any("token" in s for s in seats):
            continue
        hashed = []
        for s in seats:
            s = dict(s)
            token = s.pop("token", None)
            if token:
                s["token_sha256"] = hashlib.sha256(str(token).encode()).hexdigest()
            hashed.append(s)
        conn.execute(sa.update(_tables).where(_tables.c.id == table_id).values(seats=hashed))


def downgrade() -> None:
    # the tokens cannot be recovered from their digests: invite links made before the
    # upgrade keep working only on the upgraded schema
    raise NotImplementedError("seat tokens are stored hashed; this migration cannot be undone")
