"""sqlext's column types as Spark's: the Arrow types sqlext sends (numeric(p,s)
is decimal(p,s), timestamptz a UTC timestamp, timestamp a timestamp without
time zone, arrays lists) become Spark's types; what Spark has no type for
(or has only behind a flag, as TIME) is read as text."""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql.pandas.types import from_arrow_type, to_arrow_schema
from pyspark.sql.types import DataType, StringType, StructField, StructType, TimeType


def spark_schema(schema: pa.Schema) -> StructType:
    return StructType([StructField(field.name, _spark_type(field.type), nullable=True)
                       for field in schema])


def _spark_type(arrow: pa.DataType) -> DataType:
    try:
        found = from_arrow_type(arrow, prefer_timestamp_ntz=True)
    except Exception:
        return StringType()
    return StringType() if isinstance(found, TimeType) else found


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema Spark expects of the batches a read yields."""
    return to_arrow_schema(schema, timezone="UTC")


def conformed(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with the types Spark expects (a cast where sqlext's differ:
    time's unit, text for types Spark lacks)."""
    if batch.schema.equals(schema):
        return batch
    return pa.RecordBatch.from_arrays(
        [column if column.type == field.type else column.cast(field.type)
         for column, field in zip(batch.columns, schema, strict=True)], schema=schema)
