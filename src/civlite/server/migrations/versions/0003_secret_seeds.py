"""secret deals: a table's shuffle comes from a stored 128-bit secret; chosen seeds are marked

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as b:
        # hex of the deal's secret seed (too big for BIGINT); NULL for tables from before it
        b.add_column(sa.Column("secret", sa.String(64), nullable=True))
        # a seed chosen by the table's creator (practice): every seat is shown the seed
        b.add_column(sa.Column("seeded", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("tables") as b:
        b.drop_column("seeded")
        b.drop_column("secret")
