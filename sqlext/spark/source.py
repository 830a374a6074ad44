"""The data source Spark knows as format "sqlext"."""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from sqlext.spark.batch_read import BatchReader, schema_source
from sqlext.spark.catalog_lookup import query_schema
from sqlext.spark.options import Options
from sqlext.spark.spark_types import spark_schema
from sqlext.spark.stream_read import StreamReader
from sqlext.spark.writing import BatchWriter, StreamWriter


class SqlextDataSource(DataSource):
    """Reads tables, streams and queries; writes tables and streams; both
    as Structured Streaming too. Options: see ``sqlext.spark.options``."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.parsed = Options.parse(options)

    @classmethod
    def name(cls) -> str:
        return "sqlext"

    def schema(self) -> StructType:
        """The exact column types sqlext reports (a stream's rows with their
        batch_id last)."""
        with self.parsed.catalog_node.connect() as connection:
            return spark_schema(query_schema(connection,
                                             schema_source(connection, self.parsed)))

    def reader(self, schema: StructType) -> DataSourceReader:
        return BatchReader(self.parsed, schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return BatchWriter(self.parsed, schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        return StreamWriter(self.parsed, schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return StreamReader(self.parsed, schema)
