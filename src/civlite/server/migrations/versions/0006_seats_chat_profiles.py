"""open seats, chat, profiles and ratings: the turn a table is at (so the lobby shows it for a
table that is not in memory), whether a table is rated, the chat of each table, the players'
profiles (a name and the digest of a secret key) and each rated game's effect on a rating

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as b:
        # the game's turn after its last stored action (NULL: a table from before it, turn unknown)
        b.add_column(sa.Column("turn", sa.Integer(), nullable=True))
        # a rated table: its end moves the players' ratings (once)
        b.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("seat", sa.Integer(), nullable=True),  # NULL: a spectator
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        # the SHA-256 of the profile's secret key (the key itself is kept by the browser only)
        sa.Column("key_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_table(
        "ratings",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        # one row per profile and table: a game already rated is never rated again
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_table("profiles")
    op.drop_table("chat")
    with op.batch_alter_table("tables") as b:
        b.drop_column("rated")
        b.drop_column("turn")
