"""unique player names and the community's safety records: each profile's handle is unique
(compared case- and width-blind through ``handle_key``; profiles that shared a name before
get a numbered suffix, oldest first, the first keeping it), whom each profile has blocked,
the chat lines players reported, and the profile a
spectator's chat line was said with

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def upgrade() -> None:
    with op.batch_alter_table("profiles") as b:
        b.add_column(sa.Column("handle_key", sa.String(64), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, name FROM profiles ORDER BY created_at, id")).all()
    taken: set[str] = set()
    for pid, name in rows:
        handle, n = name, 1
        while _key(handle) in taken:
            n += 1
            handle = f"{name[:36]} {n}"
        taken.add(_key(handle))
        conn.execute(sa.text("UPDATE profiles SET name = :n, handle_key = :k WHERE id = :id"),
                     {"n": handle, "k": _key(handle), "id": pid})
    with op.batch_alter_table("profiles") as b:
        b.alter_column("handle_key", existing_type=sa.String(64), nullable=False)
        b.create_unique_constraint("uq_profiles_handle_key", ["handle_key"])
    # the profile a spectator chatted with (a player's line carries its seat, whose profile is known)
    with op.batch_alter_table("chat") as b:
        b.add_column(sa.Column("profile_id", sa.String(24), nullable=True))
    op.create_table(
        "blocks",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("blocked", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("chat_id", sa.Integer, sa.ForeignKey("chat.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("reporter", "chat_id", name="uq_reports_reporter_chat"),
    )


def downgrade() -> None:
    op.drop_table("reports")
    op.drop_table("blocks")
    with op.batch_alter_table("chat") as b:
        b.drop_column("profile_id")
    with op.batch_alter_table("profiles") as b:
        b.drop_constraint("uq_profiles_handle_key", type_="unique")
        b.drop_column("handle_key")
