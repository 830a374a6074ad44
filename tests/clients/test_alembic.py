"""Alembic 1.20 against sqlext, as a project would run it: an alembic.ini
and env.py in a directory of their own. Autogenerate against a model that
matches the database finds nothing to do; a migration that adds a column,
an index and a foreign key upgrades and downgrades, and what is reflected
after each step is what PostgreSQL 15 reflects after the same step."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from sqlext.tools.peer import PostgresPeer
from tests.fixtures import sqlalchemy_schema as fixture
from tests.fixtures.servers import ServerProcess

ENV_PY = '''
import os
import runpy

from alembic import context
from sqlalchemy import create_engine

metadata = runpy.run_path(os.path.join(os.path.dirname(__file__), "model.py"))["metadata"]

config = context.config
engine = create_engine(config.get_main_option("sqlalchemy.url"))
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=metadata,
                      include_schemas=True, version_table_schema=metadata.info["schemas"][0],
                      include_name=lambda name, type_, parent: type_ != "schema"
                      or name in metadata.info["schemas"])
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
'''

MODEL_PY = '''
from tests.fixtures.sqlalchemy_schema import schema_metadata

metadata = schema_metadata({schema!r}, {other!r})
metadata.info["schemas"] = ({schema!r}, {other!r})
'''

MIGRATION = '''
"""add a column and an index; a column becomes NOT NULL with a default"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"


def upgrade():
    op.add_column("line", sa.Column("customer_id", sa.Integer(), nullable=True),
                  schema={schema!r})
    op.create_index("ix_line_customer", "line", ["customer_id", "label"], schema={schema!r})
    op.alter_column("line", "label", nullable=False, server_default="none",
                    schema={schema!r})


def downgrade():
    op.alter_column("line", "label", nullable=True, server_default=None, schema={schema!r})
    op.drop_index("ix_line_customer", "line", schema={schema!r})
    op.drop_column("line", "customer_id", schema={schema!r})
'''

FOREIGN_KEY = '''
"""add a foreign key to an existing table"""
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade():
    op.create_foreign_key("line_customer", "line", "customer", ["customer_id"], ["id"],
                          source_schema={schema!r}, referent_schema={schema!r},
                          ondelete="SET NULL")


def downgrade():
    op.drop_constraint("line_customer", "line", schema={schema!r}, type_="foreignkey")
'''


@pytest.fixture
def project(tmp_path: Path, server: ServerProcess, postgres: PostgresPeer
            ) -> Iterator[tuple[Path, tuple[str, str], tuple[str, str]]]:
    """(directory with env.py and model.py, the two schemas, the sqlext and
    PostgreSQL URLs); both databases hold the model's tables."""
    suffix = uuid.uuid4().hex[:8]
    schemas = (f"alembic_{suffix}", f"alembic_ref_{suffix}")
    urls = (fixture.sqlext_url(server, "psycopg"), fixture.postgres_url(postgres, "psycopg"))
    (tmp_path / "env.py").write_text(ENV_PY)
    (tmp_path / "script.py.mako").write_text(
        (Path(command.__file__).parent / "templates/generic/script.py.mako").read_text())
    (tmp_path / "versions").mkdir()
    (tmp_path / "model.py").write_text(MODEL_PY.format(schema=schemas[0], other=schemas[1]))
    for url in urls:
        fixture.run_sync(url, lambda c: fixture.create_schema(c, *schemas))
    yield tmp_path, schemas, urls
    for url in urls:
        fixture.run_sync(url, lambda c: fixture.drop_schema(c, *schemas))


ALEMBIC_INI = """[alembic]
script_location = {directory}
prepend_sys_path = {directory}{separator}{root}
path_separator = os
sqlalchemy.url = {url}
"""


def _config(directory: Path, url: str) -> Config:
    """The project's alembic.ini, pointing at ``url``."""
    ini = directory / "alembic.ini"
    ini.write_text(ALEMBIC_INI.format(directory=directory, separator=os.pathsep,
                                      root=Path(__file__).resolve().parents[2], url=url))
    return Config(str(ini))


def test_autogenerate_then_migrate(project: tuple[Path, tuple[str, str], tuple[str, str]]
                                   ) -> None:
    directory, schemas, (ours, reference) = project
    config = _config(directory, ours)
    script = command.revision(config, message="nothing", autogenerate=True, rev_id="0001")
    assert script is not None and not isinstance(script, list)
    source = Path(script.path).read_text()
    assert "op." not in source, source  # upgrade() and downgrade() are just "pass"
    (directory / "versions" / "0002_add.py").write_text(MIGRATION.format(schema=schemas[0]))
    assert ScriptDirectory.from_config(config).get_current_head() == "0002"

    def reflected(url: str) -> object:
        return fixture.run_sync(url, lambda c: (fixture.reflect(c, *schemas),
                                                fixture.reflected_ddl(c, *schemas)))

    for url in (ours, reference):
        command.upgrade(_config(directory, url), "head")
    assert reflected(ours) == reflected(reference)
    for url in (ours, reference):
        command.downgrade(_config(directory, url), "0001")
    assert reflected(ours) == reflected(reference)
    for url in (ours, reference):
        command.upgrade(_config(directory, url), "head")
    assert reflected(ours) == reflected(reference)


def test_foreign_key_on_existing_table(
        project: tuple[Path, tuple[str, str], tuple[str, str]]) -> None:
    """ALTER TABLE ... ADD CONSTRAINT adds the foreign key to the existing
    table and DROP CONSTRAINT takes it away again: upgrade, downgrade and
    upgrade reflect as PostgreSQL reflects them."""
    directory, schemas, (ours, reference) = project
    (directory / "versions" / "0001_empty.py").write_text(
        'revision = "0001"\ndown_revision = None\n\n\ndef upgrade():\n    pass\n\n\n'
        "def downgrade():\n    pass\n")
    (directory / "versions" / "0002_add.py").write_text(MIGRATION.format(schema=schemas[0]))
    (directory / "versions" / "0003_fk.py").write_text(FOREIGN_KEY.format(schema=schemas[0]))

    def reflected(url: str) -> object:
        return fixture.run_sync(url, lambda c: (fixture.reflect(c, *schemas),
                                                fixture.reflected_ddl(c, *schemas)))

    for target in ("head", "0002", "head"):
        for url in (ours, reference):
            migrate = command.upgrade if target == "head" else command.downgrade
            migrate(_config(directory, url), target)
        assert reflected(ours) == reflected(reference), target
    current = fixture.run_sync(ours, lambda c: c.execute(sa.text(
        f"SELECT version_num FROM {schemas[0]}.alembic_version")).scalar_one())
    assert current == "0003"
