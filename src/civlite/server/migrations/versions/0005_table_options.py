"""table options and activity: what the creator chose besides the game (the clock's stand-in
bot), and when someone last acted at the table (abandoned tables are marked, then closed)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as b:
        # the creator's choices that are not the game's: {"stand_in": "<bot spec>"}; NULL: none
        b.add_column(sa.Column("options", sa.JSON(), nullable=True))
        # the last time a player acted or sat down here; NULL for tables from before it
        b.add_column(sa.Column("active_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as b:
        b.drop_column("active_at")
        b.drop_column("options")
