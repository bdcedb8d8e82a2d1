"""tables and their actions

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("clock", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False, server_default="playing"),
        sa.Column("num_actions", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch", sa.String(32), nullable=True),
    )
    op.create_index("ix_tables_status_created", "tables", ["status", "created_at"])
    op.create_table(
        "actions",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("client_id", sa.String(80), nullable=True),
        sa.Column("by", sa.String(16), nullable=False, server_default="human"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "client_id", name="uq_actions_client_id"),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_index("ix_tables_status_created", "tables")
    op.drop_table("tables")
