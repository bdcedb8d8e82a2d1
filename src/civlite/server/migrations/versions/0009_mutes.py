"""mutes that follow a profile: whom each profile has muted in chat (a profile, everywhere it
plays; or one seat, or the spectators, of one table), at most a bounded number a profile

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mutes",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        # "p:<profile id>", "t:<table id>:<seat>" or "t:<table id>:w" (that table's spectators)
        sa.Column("target", sa.String(64), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("mutes")
