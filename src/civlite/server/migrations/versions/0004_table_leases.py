"""table leases: which process runs a table's bots and clock (several processes on PostgreSQL)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_table_leases_expires", "table_leases", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_table_leases_expires", table_name="table_leases")
    op.drop_table("table_leases")
