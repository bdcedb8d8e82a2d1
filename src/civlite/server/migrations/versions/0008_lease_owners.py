"""lease owners: each process's heartbeat, one row a process; a table's lease holds while its
owner's heartbeat does, so renewing every lease costs one row a round instead of one a table

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lease_owners",
        sa.Column("owner", sa.String(32), primary_key=True),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_table_leases_owner", "table_leases", ["owner"])
    # the owners of the leases held now, alive as long as their latest lease
    op.execute("INSERT INTO lease_owners (owner, expires) SELECT owner, max(expires) FROM table_leases GROUP BY owner")


def downgrade() -> None:
    op.drop_index("ix_table_leases_owner", table_name="table_leases")
    op.drop_table("lease_owners")
