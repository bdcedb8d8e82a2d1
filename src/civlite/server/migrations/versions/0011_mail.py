"""turn-based tables' e-mail: each profile's opted-in address (confirmed or not; the digests of
its confirmation and unsubscribe tokens) and the mails sent, one a profile, table and turn

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_addresses",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("confirmed", sa.Boolean, nullable=False),
        sa.Column("confirm_sha256", sa.String(64), nullable=True, unique=True),
        sa.Column("unsubscribe_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "mail_sent",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("turn", sa.Integer, nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("profile_id", "table_id", "turn", name="uq_mail_sent_turn"),
    )
    op.create_index("ix_mail_sent_profile_at", "mail_sent", ["profile_id", "sent_at"])


def downgrade() -> None:
    op.drop_index("ix_mail_sent_profile_at", table_name="mail_sent")
    op.drop_table("mail_sent")
    op.drop_table("mail_addresses")
