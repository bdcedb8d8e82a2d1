"""game reviews: each finished table's review of a seat (civlite.review), computed once and
stored with the table

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("budget", sa.Integer(), nullable=False),  # search iterations per decision
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),  # the review as JSON (civlite review --json)
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reviews")
