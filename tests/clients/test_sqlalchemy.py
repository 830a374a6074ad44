"""SQLAlchemy 2 against sqlext, through each PostgreSQL dialect (psycopg 3,
psycopg2, asyncpg with create_async_engine), with default options: ORM and
Core round trips fetch what PostgreSQL 15 fetches, and the Inspector
reflects the same schema as it reflects from PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from sqlext.tools.peer import PostgresPeer
from tests.fixtures import sqlalchemy_schema as fixture
from tests.fixtures.servers import ServerProcess

Urls = tuple[str, str]
"""(sqlext, PostgreSQL) URLs of one dialect."""


@pytest.fixture(params=fixture.DRIVERS)
def urls(request: pytest.FixtureRequest, server: ServerProcess, postgres: PostgresPeer) -> Urls:
    driver = request.param
    return fixture.sqlext_url(server, driver), fixture.postgres_url(postgres, driver)


@pytest.fixture
def schemas(request: pytest.FixtureRequest, urls: Urls) -> Iterator[tuple[str, str]]:
    """Two schemas of the test's own on both servers, dropped afterwards."""
    suffix = uuid.uuid4().hex[:8]
    names = (f"sqla_{suffix}", f"sqla_ref_{suffix}")
    yield names
    for url in urls:
        fixture.run_sync(url, lambda c: fixture.drop_schema(c, *names))


# --- ORM and Core round trips ----------------------------------------------------------


def _model(schema: str) -> tuple[type[Any], type[Any], sa.MetaData]:
    """A declarative model of customers and their orders, in ``schema``."""

    class Base(orm.DeclarativeBase):
        metadata = sa.MetaData(schema=schema)

    class Customer(Base):
        __tablename__ = "customer"
        id: orm.Mapped[int] = orm.mapped_column(primary_key=True)  # serial
        name: orm.Mapped[str] = orm.mapped_column(sa.String(50))
        balance: orm.Mapped[decimal.Decimal] = orm.mapped_column(sa.Numeric(10, 2),
                                                                 server_default="0")
        active: orm.Mapped[bool] = orm.mapped_column(server_default=sa.true())
        tier: orm.Mapped[str] = orm.mapped_column(
            sa.Enum("basic", "gold", name="tier", native_enum=False), server_default="basic")
        joined: orm.Mapped[datetime.datetime] = orm.mapped_column(
            sa.DateTime(timezone=True), server_default=sa.func.now())
        orders: orm.Mapped[list[Order]] = orm.relationship(
            back_populates="customer", cascade="all, delete-orphan", order_by="Order.id")

    class Order(Base):
        __tablename__ = "orders"
        id: orm.Mapped[int] = orm.mapped_column(sa.BigInteger, sa.Identity(), primary_key=True)
        customer_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey("customer.id"))
        placed: orm.Mapped[datetime.date]
        at: orm.Mapped[datetime.datetime | None]
        total: orm.Mapped[float | None]
        note: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
        tags: orm.Mapped[list[int] | None] = orm.mapped_column(pg.ARRAY(sa.Integer))
        data: orm.Mapped[dict[str, Any] | None] = orm.mapped_column(pg.JSONB)
        doc: orm.Mapped[Any] = orm.mapped_column(sa.JSON, nullable=True)
        raw: orm.Mapped[bytes | None] = orm.mapped_column(sa.LargeBinary)
        uid: orm.Mapped[uuid.UUID | None]
        big: orm.Mapped[int | None] = orm.mapped_column(sa.BigInteger)
        customer: orm.Mapped[Customer] = orm.relationship(back_populates="orders")

    return Customer, Order, Base.metadata


def _round_trip(connection: Connection, schema: str) -> list[Any]:
    """Create, insert, query, update and delete through the ORM and Core;
    what was fetched at each step."""
    customer_class, order_class, metadata = _model(schema)
    connection.execute(sa.text(f"CREATE SCHEMA {schema}"))
    metadata.create_all(connection)
    seen: list[Any] = []
    with orm.Session(bind=connection) as session:
        ada = customer_class(name="Ada", orders=[
            order_class(placed=datetime.date(2024, 2, 29),
                        at=datetime.datetime(2024, 2, 29, 23, 59, 59, 123456), total=1.5,
                        note="first's", tags=[1, 2, 3], data={"a": [1, None, True]},
                        doc=["x", {"y": 1.25}], raw=b"\x00\xff\x10",
                        uid=uuid.UUID("12345678-1234-5678-1234-567812345678"),
                        big=2**62),
            order_class(placed=datetime.date(1999, 12, 31)),
        ])
        bob = customer_class(name="Bob", balance=decimal.Decimal("12.30"), tier="gold",
                             active=False)
        session.add_all([ada, bob])
        session.flush()
        seen.append([(c.id, c.balance, c.active, c.tier) for c in (ada, bob)])
        seen.append([order.id for order in ada.orders])
        session.commit()
        session.expunge_all()
        query = sa.select(customer_class).options(orm.selectinload(customer_class.orders)) \
            .order_by(customer_class.name)
        for customer in session.scalars(query):
            seen.append((customer.name, customer.balance, customer.tier,
                         type(customer.joined).__name__, customer.joined.tzinfo is not None))
            seen.extend((o.id, o.placed, o.at, o.total, o.note, o.tags, o.data, o.doc, o.raw,
                         o.uid, o.big) for o in customer.orders)
        joined = sa.select(customer_class.name, sa.func.count(order_class.id),
                           sa.func.sum(order_class.total)).join(
            order_class, isouter=True).group_by(customer_class.name).order_by(
            customer_class.name)
        seen.append([tuple(row) for row in session.execute(joined)])
        bob = session.scalars(sa.select(customer_class).filter_by(name="Bob")).one()
        bob.balance += decimal.Decimal("0.75")
        session.commit()
        seen.append(session.scalar(sa.select(customer_class.balance).filter_by(name="Bob")))
        session.delete(session.scalars(sa.select(customer_class).filter_by(name="Ada")).one())
        session.commit()
        seen.append(session.scalar(sa.select(sa.func.count()).select_from(order_class)))
    orders = metadata.tables[f"{schema}.orders"]
    returned = connection.execute(
        sa.insert(orders).returning(orders.c.id, orders.c.placed, orders.c.tags),
        [{"customer_id": 2, "placed": datetime.date(2000, 1, 1), "tags": []},
         {"customer_id": 2, "placed": datetime.date(2000, 1, 2), "tags": None}])
    seen.append([tuple(row) for row in returned])
    updated = connection.execute(
        sa.update(orders).where(orders.c.tags.is_not(None)).values(
            tags=orders.c.tags + sa.literal([7], pg.ARRAY(sa.Integer))).returning(orders.c.tags))
    seen.append([tuple(row) for row in updated])
    seen.append(connection.execute(sa.select(orders.c.id).where(
        orders.c.tags.contains([7])).order_by(orders.c.id)).scalars().all())
    return seen


def test_orm_and_core_round_trip(urls: Urls, schemas: tuple[str, str]) -> None:
    ours, reference = urls
    schema = schemas[0]
    expected = fixture.run_sync(reference, lambda c: _round_trip(c, schema))
    assert fixture.run_sync(ours, lambda c: _round_trip(c, schema)) == expected


def test_async_session(server: ServerProcess) -> None:
    """An AsyncSession over asyncpg: a query with a parameter of each kind
    asyncpg sends typed."""
    async def go() -> list[Any]:
        engine = create_async_engine(fixture.sqlext_url(server, "asyncpg"))
        try:
            async with AsyncSession(engine) as session:
                row = (await session.execute(sa.select(
                    sa.literal(3), sa.literal("x"), sa.literal(decimal.Decimal("1.50")),
                    sa.literal(datetime.date(2024, 1, 2)), sa.literal(True)))).one()
                return list(row)
        finally:
            await engine.dispose()

    assert asyncio.run(go()) == [3, "x", decimal.Decimal("1.50"), datetime.date(2024, 1, 2),
                                 True]


# --- reflection ------------------------------------------------------------------------


def test_inspector_matches_postgres(urls: Urls, schemas: tuple[str, str]) -> None:
    ours, reference = urls
    for url in urls:
        fixture.run_sync(url, lambda c: fixture.create_schema(c, *schemas))
    expected = fixture.run_sync(reference, lambda c: fixture.reflect(c, *schemas))
    found = fixture.run_sync(ours, lambda c: fixture.reflect(c, *schemas))
    assert {key: value for key, value in found.items() if value != expected.get(key)} == {}
    assert found.keys() == expected.keys()
    assert fixture.run_sync(ours, lambda c: fixture.reflected_ddl(c, *schemas)) == (
        fixture.run_sync(reference, lambda c: fixture.reflected_ddl(c, *schemas)))


def test_view_definition_is_its_query(server: ServerProcess) -> None:
    """sqlext shows a view's query as it was written, where PostgreSQL
    prints it from the parsed tree (docs/sql.md, System catalogs): the
    definition Inspector reflects reads the same rows as the view."""
    url = fixture.sqlext_url(server, "psycopg")
    schemas = ("sqla_view", "sqla_view_ref")

    def check(connection: Connection) -> None:
        fixture.create_schema(connection, *schemas)
        schema = schemas[0]
        connection.execute(sa.text(
            f"INSERT INTO {schema}.customer (name) VALUES ('c');"
            f"INSERT INTO {schema}.orders (customer_id, quantity, total) "
            "VALUES (1, 1, 1.0), (1, 2, 2.0), (1, 3, NULL)"))
        definition = fixture.view_definition(connection, schema)
        assert definition is not None
        through_view = connection.execute(sa.text(
            f"SELECT * FROM {schema}.{fixture.VIEW} ORDER BY 1")).all()
        assert connection.execute(sa.text(
            f"SELECT * FROM ({definition.rstrip(';')}) v ORDER BY 1")).all() == through_view
        assert len(through_view) == 2

    try:
        fixture.run_sync(url, check)
    finally:
        fixture.run_sync(url, lambda c: fixture.drop_schema(c, *schemas))
